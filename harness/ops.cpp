#include "harness/ops.hpp"

#include <algorithm>
#include <functional>
#include <iostream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/markdown.hpp"
#include "core/resources.hpp"
#include "core/workspace.hpp"
#include "harness/client.hpp"
#include "harness/daemon.hpp"
#include "harness/fields.hpp"
#include "harness/ops_retry.hpp"
#include "harness/ops_steps.hpp"

namespace kgo::harness {

namespace fs = std::filesystem;
using nlohmann::json;

json harness_catalog(const PythonInterpreter& py) {
  HarnessOutcome o = run_harness({"catalog", json::object(), py, std::chrono::seconds(300), {}, false});
  return jobj(o.result, "ops");
}

const json* catalog_entry(const json& catalog, const std::string& name) {
  std::string canonical = canonical_op(name);
  for (const auto& e : catalog) {
    if (jstr(e, "name") == canonical) return &e;
  }
  return nullptr;
}

namespace {

void check_op_name(const std::string& op) {
  if (op.empty() || op.size() > 64 ||
      !std::all_of(op.begin(), op.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; })) {
    throw Error("op name '" + op + "' is not usable as a folder and function name; use letters, digits and '_'",
                ExitCode::usage);
  }
}

// Copies the op's templates (or the generic skeletons) into kernels/<op>/, never over a file that
// exists: the agent's regenerated variants are kept.
std::vector<std::string> set_up_op(const fs::path& dir, const std::string& op, const std::string& entry) {
  fs::path src = core::data_dir() / "templates" / "ops" / op;
  bool generic = !fs::is_directory(src);
  if (generic) src = core::data_dir() / "templates" / "ops" / "generic";
  fs::path dst = dir / "kernels" / op;
  fs::create_directories(dst);
  std::vector<std::string> created;
  std::vector<std::string> names = op_variants();
  names.push_back("ref");
  for (const auto& v : names) {
    fs::path out = dst / (v + ".py");
    if (fs::exists(out)) continue;
    std::string text = core::read_file(src / (v + ".py"));
    if (generic) text = core::render_template(text, {{"op", op}, {"entry", entry}});
    core::write_file_atomic(out, text);
    created.push_back(fs::relative(out, dir).string());
  }
  if (!fs::exists(dst / "__init__.py")) {
    core::write_file_atomic(dst / "__init__.py", "");
    created.push_back(fs::relative(dst / "__init__.py", dir).string());
  }
  return created;
}

}  // namespace

const std::vector<std::string>& op_variants() {
  static const std::vector<std::string> v = {"v1_baseline", "v2_tiling", "v3_coalesced", "v4_optimized"};
  return v;
}

bool OpsReport::all_correct() const {
  for (const auto& op : ops) {
    for (const auto& v : op.variants) {
      if (v.status != "PASS") return false;
    }
  }
  return !ops.empty();
}

namespace {

json load_state(const fs::path& path) {
  json state = json::object();
  if (auto text = core::try_read_file(path)) {
    state = json::parse(*text, nullptr, false);
    if (state.is_discarded() || !state.is_object()) {
      throw Error(path.string() + " is not valid JSON; fix it or move it away", ExitCode::record_error);
    }
  }
  state["schema_version"] = 1;
  if (!state.contains("ops")) state["ops"] = json::object();
  return state;
}

// The ops this run reports: those named, or for a retry the retried op first and then every other
// recorded op (re-reported, with its logs and the summary rewritten, from its recorded attempts).
std::vector<std::string> ops_to_report(const OpsOptions& o, const std::optional<RetryTarget>& retry, const json& state) {
  std::vector<std::string> names = o.ops;
  if (retry) {
    if (!state["ops"].contains(retry->op)) {
      throw Error("--retry " + *o.retry + ": op " + retry->op + " has not been run in " + o.dir.string() +
                      "; run `kgo ops " + retry->op + "` first",
                  ExitCode::usage);
    }
    names = {retry->op};
    for (const auto& [name, _] : state["ops"].items()) {
      if (name != retry->op) names.push_back(name);
    }
  }
  if (names.empty()) throw Error("name at least one op, e.g. kgo ops softmax,layernorm,gelu", ExitCode::usage);
  return names;
}

// What one run of kgo ops shares between its ops.
struct OpsRun {
  const OpsOptions& o;
  PythonInterpreter py;
  std::string device;
  std::optional<RetryTarget> retry;
  json state;
  std::function<void()> save_state;
};

// Phase 3 correctness of one variant, with the seed's regeneration limit: checks it when the rules
// say so (recording the attempt), then reads its status from the attempts.
VariantOutcome check_variant(OpsRun& run, OpOutcome& out, const std::string& v, const fs::path& ref) {
  VariantOutcome vo;
  vo.name = v;
  vo.file = out.dir / (v + ".py");
  json& attempts = variant_state(run.state, out.op, v)["attempts"];
  std::string sha = core::sha256_file(vo.file);
  RetryRole role = !run.retry ? RetryRole::plain
                   : run.retry->op == out.op && run.retry->variant == v ? RetryRole::retried
                                                                        : RetryRole::other;
  if (should_check(attempts, sha, role, run.o.max_retries, out.op + "/" + v, vo.file.string())) {
    ops_progress(fmt::format("{}/{}: checking (attempt {})", out.op, v, attempts.size() + 1));
    CheckReport c = run_check(variant_target(run.o, run.py, run.device, out.op, out.entry, vo.file, ref), run.o.check);
    attempts.push_back({{"attempt", attempts.size() + 1},
                        {"at", core::utc_now_iso()},
                        {"kernel_sha256", c.kernel_sha256},
                        {"verdict", c.verdict},
                        {"message", c.message},
                        {"rel_err", c.result.value("max_rel_err", json())},
                        {"device", run.device}});
    if (out.gpu.empty()) out.gpu = jstr(jobj(c.result, "environment"), "gpu");
    vo.checked_now = true;
    run.save_state();
  }
  vo.attempts = static_cast<int>(attempts.size());
  VariantStatus st = variant_status(attempts, sha, run.o.max_retries, out.op);
  vo.status = st.status;
  vo.message = st.message;
  vo.rel_err = st.rel_err;
  vo.retries_left = st.retries_left;
  return vo;
}

// One op: its files set up, its variants checked, then (GPU) benchmarked, and its log written.
OpOutcome run_op(OpsRun& run, const json& catalog, const std::string& typed,
                 const std::vector<std::vector<long long>>& sizes) {
  const json* entry = catalog_entry(catalog, typed);
  OpOutcome out;
  out.op = canonical_op(typed);
  check_op_name(out.op);
  out.entry = entry ? jstr(*entry, "entry", "triton_" + out.op) : "triton_" + out.op;
  out.dir = run.o.dir / "kernels" / out.op;
  out.sizes = sizes;
  out.created = set_up_op(run.o.dir, out.op, out.entry);
  fs::path ref = out.dir / "ref.py";
  for (const auto& v : op_variants()) out.variants.push_back(check_variant(run, out, v, ref));
  // Phase 3: benchmark (GPU only), reusing timings of unchanged kernels; Phase 4: the fastest.
  if (run.device != "cuda") {
    out.note = "not benchmarked: no GPU (device cpu); run kgo ops on a GPU machine to time the variants";
  } else {
    bench_op(out, run.state, run.o, run.py, ref, run.save_state);
  }
  out.log_path = run.o.dir / "logs" / (out.op + "_log.md");
  core::write_file_atomic(out.log_path, render_op_log(out, entry ? *entry : json::object(), run.o));
  return out;
}

}  // namespace

OpsReport run_ops(const OpsOptions& o) {
  if (o.max_retries < 0) throw Error("--max-retries must be 0 or more", ExitCode::usage);
  OpsRun run{o, locate_python(o.target.python), resolve_device(o.target.device), {}, {}, {}};
  std::vector<std::vector<long long>> sizes;
  for (const auto& s : o.sizes) sizes.push_back(core::parse_shape(s));
  if (sizes.empty()) sizes = seed_sizes();
  PrivateHarness worker(run.py, run.device);  // every variant's check goes through one warm worker
  json catalog = harness_catalog(run.py);
  run.retry = parse_retry(o.retry);

  OpsReport report;
  fs::create_directories(o.dir / "logs");
  report.state_path = o.dir / "logs" / "ops_state.json";
  run.state = load_state(report.state_path);
  run.save_state = [&] { core::write_file_atomic(report.state_path, run.state.dump(2) + "\n"); };
  for (const auto& typed : ops_to_report(o, run.retry, run.state)) report.ops.push_back(run_op(run, catalog, typed, sizes));
  run.save_state();
  report.summary_path = o.dir / "logs" / "summary.md";
  core::write_file_atomic(report.summary_path, render_ops_summary(report));
  return report;
}

}  // namespace kgo::harness
