#include "harness/check.hpp"

#include <map>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/txn.hpp"
#include "core/workspace.hpp"
#include "core/memory.hpp"
#include "core/stamp.hpp"
#include "harness/client.hpp"
#include "harness/fields.hpp"
#include "harness/record.hpp"

namespace kgo::harness {

namespace fs = std::filesystem;

namespace {

std::string num(const std::optional<double>& v) {
  return v ? fmt::format("{:.3g}", *v) : std::string("-");
}

std::string index_text(const nlohmann::json& idx) {
  if (!idx.is_array() || idx.empty()) return "-";
  std::string s = "(";
  for (size_t i = 0; i < idx.size(); ++i) s += (i ? "," : "") + idx[i].dump();
  return s + ")";
}

// A markdown table cell: one line, no column separators.
std::string cell(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r' || c == '|') c = c == '|' ? '/' : ' ';
  }
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string shape_text(const nlohmann::json& shape) {
  std::string s;
  for (const auto& d : shape) s += (s.empty() ? "" : "x") + d.dump();
  return s.empty() ? "-" : s;
}

}  // namespace

CheckReport run_check(const Target& target, const CheckSettings& settings) {
  if (target.contract == "cuda" && target.device != "cuda") {
    throw Error("the CUDA contract compiles and runs " + target.kernel.filename().string() +
                    " on a GPU and none is in use here (--device cpu, or no GPU visible); run kgo check on a "
                    "GPU machine. Nothing was recorded.",
                ExitCode::no_gpu);
  }
  CheckReport r;
  r.target = target;
  r.settings = settings;
  r.kernel_sha256 = core::sha256_file(target.kernel);
  nlohmann::json req = target_request(target);
  req["trials"] = settings.trials;
  if (settings.seed) req["seed"] = *settings.seed;
  req["edge_shapes"] = settings.edge_shapes;
  req["case_timeout_s"] = settings.case_timeout_s;
  req["total_timeout_s"] = settings.total_timeout_s;
  if (settings.atol) req["atol"] = *settings.atol;
  if (settings.rtol) req["rtol"] = *settings.rtol;
  if (settings.max_rel_err) req["max_rel_err"] = *settings.max_rel_err;
  HarnessCall call{"check", req, target.python, {}, {}, settings.progress};
  HarnessOutcome o = run_harness(call);
  r.verdict = o.verdict;
  r.result = std::move(o.result);
  r.message = jstr(r.result, "message");
  r.synthesized = o.synthesized;
  r.stderr_tail = o.stderr_tail;
  r.seconds = o.seconds;
  if (!r.synthesized) verify_harness_hash(target.kernel, r.kernel_sha256, r.result);
  if (r.result.value("needs_gpu", false)) {
    throw Error(r.message + " (no GPU in use: --device " + target.device + "). Nothing was recorded.",
                ExitCode::no_gpu);
  }
  return r;
}

nlohmann::json check_details(const nlohmann::json& result) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : jobj(result, "checks")) {
    nlohmann::json entry = c;
    entry["details"] = jobj(result, jstr(c, "name").c_str());
    out.push_back(std::move(entry));
  }
  return out;
}

std::optional<double> max_abs_err(const nlohmann::json& result) {
  std::optional<double> best;
  for (const auto& c : jobj(result, "cases")) {
    if (auto v = jnum(c, "max_abs_err"); v && (!best || *v > *best)) best = v;
  }
  return best;
}

nlohmann::json correctness_value(const CheckReport& r) {
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& c : jobj(r.result, "cases")) {
    cases.push_back({{"shape", c.value("shape", nlohmann::json::array())},
                     {"trial", c.value("trial", 0)},
                     {"status", jstr(c, "status")},
                     {"rel_err", opt(jnum(c, "rel_err"))},
                     {"max_abs_err", opt(jnum(c, "max_abs_err"))},
                     {"mismatches", c.value("mismatches", nlohmann::json())}});
  }
  std::string status = r.verdict == "PASS" || r.verdict == "TIMEOUT_FAIL" ? r.verdict : "FAIL";
  const nlohmann::json& tol = jobj(r.result, "tolerance");
  auto nonneg = [](std::optional<double> v) { return v && *v >= 0 ? nlohmann::json(*v) : nlohmann::json(); };
  nlohmann::json value = {{"status", status},
          {"rel_err", nonneg(jnum(r.result, "max_rel_err"))},
          {"max_abs_err", nonneg(max_abs_err(r.result))},
          {"threshold", nonneg(jnum(tol, "max_rel_err"))},
          {"details",
           {{"verdict", r.verdict},
            {"message", r.message},
            {"contract", jstr(r.result, "contract", r.target.contract)},
            {"op", r.result.value("op", nlohmann::json())},
            {"dtype", r.target.torch_dtype},
            {"device", r.target.device},
            {"tolerance", tol},
            {"cell", r.result.value("cell", nlohmann::json())},
            {"checks", check_details(r.result)},
            {"cases", cases}}}};
  if (r.result.contains("roofline") && r.result["roofline"].is_object()) {
    value["details"]["roofline"] = r.result["roofline"];  // kgo roofline's defaults for a KernelBench problem
  }
  return value;
}

void record_check(const fs::path& workspace, CheckReport& r) {
  core::LockedWorkspace lock(workspace);
  verify_kernel_unchanged(r.target.kernel, r.kernel_sha256);
  RecordChoice choice = current_record(workspace);
  if (!choice.version) {
    r.record_note = "not recorded: " + choice.why_not;
    return;
  }
  core::record_measurement(workspace, *choice.version, "correctness", correctness_value(r),
                           r.kernel_sha256, "kgo check",
                           core::StampInputs{stamp_sources(workspace, r.result), r.target.allow_ops});
  if (!r.synthesized) write_environment(workspace, *choice.version, r.result);
  r.recorded_version = choice.version;
}

std::string render_cases_table(const nlohmann::json& res) {
  const nlohmann::json& cases = jobj(res, "cases");
  if (cases.empty()) return "";
  std::string text =
      "| shape | trial | status | max abs err | mean abs err | rel_err | mismatches | first bad index | note |\n"
      "|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& c : cases) {
    std::string note = jstr(c, "status") == "PASS" ? "" : cell(jstr(c, "message"));
    text += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                        shape_text(c.value("shape", nlohmann::json::array())), c.value("trial", 0), jstr(c, "status"),
                        num(jnum(c, "max_abs_err")), num(jnum(c, "mean_abs_err")), num(jnum(c, "rel_err")),
                        c.contains("mismatches") && c["mismatches"].is_number() ? c["mismatches"].dump() : "-",
                        index_text(c.value("first_bad_index", nlohmann::json())), note);
  }
  return text;
}

// What kgo roofline counts for a problem the harness mapped (KernelBench), or its custom message.
static std::string roofline_line(const nlohmann::json& roofline) {
  if (roofline.empty()) return "";
  if (roofline.value("op", nlohmann::json()).is_null()) return "roofline: " + jstr(roofline, "message") + "\n";
  std::string shapes;
  for (const auto& s : jobj(roofline, "shapes")) {
    std::string flag = " --shape " + core::shape_to_string(s.value("op_shape", std::vector<long long>{}));
    if (shapes.find(flag) == std::string::npos) shapes += flag;
  }
  return fmt::format("roofline: Model.forward is the catalog op {}; kgo roofline counts it (as kgo roofline --op {}{})\n",
                     jstr(roofline, "op"), jstr(roofline, "op"), shapes);
}

std::string render_check_text(const CheckReport& r) {
  const nlohmann::json& res = r.result;
  std::string text = fmt::format("kgo check: {} (contract {}, op {}, {}, device {}{})\n",
                                 r.target.kernel.filename().string(), jstr(res, "contract", r.target.contract),
                                 jstr(res, "op", r.target.op.value_or("-")), r.target.torch_dtype,
                                 r.target.device, r.target.device == "cpu" ? ", TRITON_INTERPRET=1" : "");
  const nlohmann::json& tol = jobj(res, "tolerance");
  if (!tol.empty()) {
    const std::string basis = jstr(tol, "basis");
    text += fmt::format("tolerance: atol {}{} rtol {} max rel_err {} (from {}{})\n", num(jnum(tol, "atol")),
                        jstr(tol, "atol_scale") == "reference_rms" ? " x RMS(reference)" : "",
                        num(jnum(tol, "rtol")), num(jnum(tol, "max_rel_err")), jstr(tol, "source", "?"),
                        basis.empty() ? "" : ": " + basis);
  }
  std::string table = render_cases_table(res);
  if (!table.empty()) text += "\n" + table + "\n";
  for (const auto& c : jobj(res, "checks")) {
    if (!jstr(c, "message").empty()) text += jstr(c, "name") + ": " + jstr(c, "message") + "\n";
  }
  for (const auto& w : jobj(res, "warnings")) {
    if (w.is_string()) text += "warning: " + w.get<std::string>() + "\n";
  }
  if (auto v = jnum(res, "max_rel_err")) {
    text += fmt::format("max rel_err: {:.3g} (reference computed in {})\n", *v, jstr(res, "reference_dtype", "?"));
  }
  text += roofline_line(jobj(res, "roofline"));
  text += fmt::format("verdict: {} — {}\n", r.verdict, r.message);
  if (r.synthesized && !r.stderr_tail.empty()) text += "harness stderr (last lines):\n" + r.stderr_tail + "\n";
  if (r.recorded_version) {
    text += fmt::format("recorded: memory/v{}.json correctness = {} (kernel sha256 {})\n", *r.recorded_version,
                        correctness_value(r)["status"].get<std::string>(), r.kernel_sha256.substr(0, 12));
  } else if (!r.record_note.empty()) {
    text += r.record_note + "\n";
  }
  return text;
}

namespace {

// At most this many failing cases in the summary; --detail has all of them.
constexpr size_t k_summary_failures = 5;

nlohmann::json summary_failures(const nlohmann::json& result, int& passed, int& skipped, int& total) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : jobj(result, "cases")) {
    ++total;
    if (jstr(c, "status") == "PASS" || jstr(c, "status") == "SKIPPED") {
      ++(jstr(c, "status") == "PASS" ? passed : skipped);  // a skipped edge shape is in the warnings
      continue;
    }
    if (out.size() >= k_summary_failures) continue;
    nlohmann::json f = {{"shape", c.value("shape", nlohmann::json::array())}, {"trial", c.value("trial", 0)},
                        {"status", jstr(c, "status")}, {"message", jstr(c, "message")}};
    for (const char* k : {"rel_err", "max_abs_err", "mismatches", "first_bad_index"}) {
      if (c.contains(k) && !c[k].is_null()) f[k] = c[k];
    }
    out.push_back(f);
  }
  return out;
}

}  // namespace

nlohmann::json to_json(const CheckReport& r, bool detail) {
  int passed = 0, skipped = 0, total = 0;
  nlohmann::json failures = summary_failures(r.result, passed, skipped, total);
  nlohmann::json c = correctness_value(r);
  nlohmann::json j = {{"verdict", r.verdict},
                      {"message", r.message},
                      {"kernel", r.target.kernel.string()},
                      {"reference", r.target.reference ? nlohmann::json(r.target.reference->string()) : nlohmann::json()},
                      {"kernel_sha256", r.kernel_sha256},
                      {"device", r.target.device},
                      {"gpu_uuid", jobj(r.result, "environment").value("gpu_uuid", nlohmann::json())},
                      {"dtype", r.target.torch_dtype},
                      {"synthesized", r.synthesized},
                      {"seconds", r.seconds},
                      {"recorded", r.recorded_version ? nlohmann::json("v" + std::to_string(*r.recorded_version))
                                                      : nlohmann::json()},
                      {"record_note", r.record_note},
                      {"cases", {{"total", total}, {"passed", passed}, {"failed", total - passed - skipped}, {"skipped", skipped}}},
                      {"rel_err", c["rel_err"]},
                      {"max_abs_err", c["max_abs_err"]},
                      {"threshold", c["threshold"]},
                      {"failures", failures},
                      {"culprit", r.result.value("culprit", nlohmann::json())}};
  if (r.result.contains("roofline") && r.result["roofline"].is_object()) j["roofline"] = r.result["roofline"];
  if (!detail) {
    j["detail"] = "--detail adds every case, every check and the harness result";
    return j;
  }
  j["python"] = r.target.python.resolved.string();
  j["correctness"] = std::move(c);
  j["harness"] = r.result;
  return j;
}

std::string verdict_explanation(const CheckReport& r) {
  std::string culprit = jstr(r.result, "culprit", "kernel");
  if (r.verdict == "UNTRUSTED") {
    return "check UNTRUSTED: " + r.message;
  }
  if (r.verdict == "FAIL" && culprit == "kernel") {
    return "check FAILED: the kernel's output does not match the reference (" + r.message +
           "); fix the kernel and run kgo check again";
  }
  if (r.verdict == "FAIL") {
    static const std::map<std::string, std::string> what = {
        {"setup", "the kernel file's setup() failed"},
        {"import", "a file could not be imported"},
        {"reference", "the reference failed (not the kernel)"},
        {"contract", "the files do not fit the contract kgo used (see kgo init --help: --contract, --dim, "
                     "--inputs/--outputs)"},
        {"environment", "this machine cannot run it"},
        {"delegation", "the kernel hands the work to the torch op it replaces"}};
    auto it = what.find(culprit);
    return "check FAILED: " + (it != what.end() ? it->second : culprit) + ": " + r.message;
  }
  if (r.verdict == "TIMEOUT_FAIL") {
    return "check TIMED OUT: " + r.message +
           "; make the kernel finish, or raise --case-timeout / --timeout if it is legitimately slow";
  }
  if (r.verdict == "CRASH") {
    return "check CRASHED: the kernel crashed the process running it (" + r.message +
           "); kgo itself is fine — look for out-of-bounds accesses or bad launch parameters";
  }
  if (r.verdict == "REWARD_HACK") {
    return "check REWARD_HACK: " + r.message + "; the kernel must compute its outputs, not game the judge";
  }
  if (r.verdict == "INVALID_REFERENCE") {
    return "check INVALID_REFERENCE: " + r.message + "; nothing can be judged against this reference";
  }
  return "";
}

}  // namespace kgo::harness
