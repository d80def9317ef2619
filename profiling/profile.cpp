#include "profiling/profile.hpp"

#include <chrono>
#include <regex>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/memory.hpp"
#include "core/strings.hpp"
#include "core/tools.hpp"
#include "core/txn.hpp"
#include "core/workspace.hpp"
#include "harness/client.hpp"
#include "harness/gpu_info.hpp"
#include "profiling/ncu_csv.hpp"
#include "profiling/ncu_metrics.hpp"
#include "profiling/runner.hpp"

namespace kgo::profiling {

namespace fs = std::filesystem;

namespace {

// ncu's own words when the counters cannot be read (permissions, containers, sandboxes).
const char* kNoCounters[] = {"ERR_NVGPUCTRPERM", "LibraryNotLoaded", "Failed to initialize the profiler",
                             "profiling is not supported", "Profiling is not supported",
                             "does not have permission to access NVIDIA GPU Performance Counters"};

std::string tail(const std::string& s, size_t n = 1500) { return s.size() <= n ? s : s.substr(s.size() - n); }

std::string shell_join(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    bool plain = !a.empty() && a.find_first_of(" \t'\"$\\*?()[]{}<>|;&") == std::string::npos;
    s += (s.empty() ? "" : " ") + (plain ? a : "'" + std::regex_replace(a, std::regex("'"), "'\\''") + "'");
  }
  return s;
}

std::string regex_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::string("\\^$.|?*+()[]{}").find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

struct Scratch {
  fs::path dir;
  ~Scratch() {
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
  }
};

struct Pass {
  HarnessRun run;
  std::string log;
  NcuReport report;
  std::vector<std::string> argv;
};

// The request file goes to `request_dir` (profiles/v<N>/, so the recorded command can be re-run);
// ncu's log goes to `scratch`.
Pass ncu_pass(const harness::Target& t, const std::vector<long long>& shape, std::vector<std::string> argv,
              const fs::path& scratch, const fs::path& request_dir, const ProfileOptions& o) {
  Pass p;
  fs::path log = scratch / "ncu.csv";
  std::error_code ec;
  fs::remove(log, ec);
  argv.insert(argv.begin() + 1, {"--log-file", log.string()});
  p.run = run_once(t, shape, argv, {}, request_dir, o.warmup, o.timeout_s);
  p.argv = p.run.argv;  // ncu's arguments and the harness command it launches
  p.log = core::try_read_file(log).value_or("");
  p.report = parse_ncu_csv(p.log);
  return p;
}

std::optional<std::string> no_counter_message(const std::string& text) {
  for (const char* k : kNoCounters) {
    size_t at = text.find(k);
    if (at == std::string::npos) continue;
    size_t start = text.rfind('\n', at);
    size_t end = text.find('\n', at);
    return text.substr(start == std::string::npos ? 0 : start + 1,
                       end == std::string::npos ? std::string::npos : end - (start == std::string::npos ? 0 : start + 1));
  }
  return std::nullopt;
}

std::vector<LaunchInfo> launch_infos(const NcuReport& rep) {
  std::vector<LaunchInfo> out;
  for (const auto& l : rep.launches) {
    out.push_back({l.id, l.kernel, l.first_number({"gpu__time_duration.sum", "gpu__time_duration.avg"})});
  }
  return out;
}

std::vector<std::string> harness_launches(const HarnessRun& run) {
  std::vector<std::string> names;
  if (run.result.is_object() && run.result.contains("launches") && run.result["launches"].is_array()) {
    for (const auto& n : run.result["launches"]) {
      if (n.is_string()) names.push_back(n.get<std::string>());
    }
  }
  return names;
}

void fail_for_harness(const Pass& p) {
  const auto& res = p.run.result;
  if (res.is_object() && res.value("verdict", "") != "PASS") {
    throw Error("the kernel did not run under ncu: " + res.value("message", std::string("no message")) +
                    "\nncu log:\n" + tail(p.log + p.run.process.err),
                ExitCode::harness_error);
  }
}

// Timing-only evidence when the counters are closed: one harness bench of the same shape.
nlohmann::json timing_only(const harness::Target& t, const std::vector<long long>& shape, const ProfileOptions& o) {
  harness::HarnessCall call;
  call.command = "bench";
  call.request = harness::target_request(t);
  call.request["shapes"] = nlohmann::json::array({shape});
  call.request["bench"] = {{"runs", 10}, {"baselines", nlohmann::json::array()}};
  call.request["total_timeout_s"] = o.timeout_s;
  call.python = t.python;
  harness::HarnessOutcome out;
  try {
    out = harness::run_harness(call);
  } catch (const Error& e) {  // evidence is best effort here: say why there is none
    return {{"tool", "kgo bench (harness, CUDA events)"}, {"verdict", "ERROR"}, {"message", e.what()}};
  }
  nlohmann::json j = {{"tool", "kgo bench (harness, CUDA events)"}, {"verdict", out.verdict}};
  if (out.result.contains("sizes") && out.result["sizes"].is_array() && !out.result["sizes"].empty()) {
    const auto& s = out.result["sizes"][0];
    for (const char* k : {"median_us", "iqr_us", "achieved_tbps", "achieved_tflops", "mode", "runs"}) {
      if (s.contains(k)) j[k] = s[k];
    }
  } else {
    j["message"] = out.result.value("message", std::string("no timing"));
  }
  return j;
}


}  // namespace

std::optional<size_t> choose_launch(const std::vector<LaunchInfo>& launches, const std::vector<std::string>& preferred) {
  auto best_of = [&](auto pred) -> std::optional<size_t> {
    std::optional<size_t> best;
    for (size_t i = 0; i < launches.size(); ++i) {
      if (!pred(launches[i])) continue;
      if (!best || launches[i].duration_ns.value_or(0) > launches[*best].duration_ns.value_or(0)) best = i;
    }
    return best;
  };
  if (!preferred.empty()) {
    auto hit = best_of([&](const LaunchInfo& l) {
      for (const auto& p : preferred) {
        if (l.kernel.find(p) != std::string::npos) return true;
      }
      return false;
    });
    if (hit) return hit;
  }
  return best_of([](const LaunchInfo&) { return true; });
}

ProfileResult run_profile(const fs::path& ws, const ProfileOptions& o) {
  auto t0 = std::chrono::steady_clock::now();
  ProfileResult r;
  r.workspace = ws;
  r.set = o.set;
  if (o.set != "basic" && o.set != "detailed" && o.set != "full") {
    throw Error("--set must be basic, detailed or full, not '" + o.set + "'", ExitCode::usage);
  }
  if (o.thresholds_file) {
    auto text = core::read_file(*o.thresholds_file);
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) throw Error(o.thresholds_file->string() + " is not JSON", ExitCode::usage);
    r.thresholds = thresholds_from_json(j, r.thresholds);
  }
  for (const auto& a : o.thresholds) set_threshold(r.thresholds, a);
  core::WorkspaceConfig cfg = core::load_config(ws);
  r.version = choose_version(ws, o.version);
  r.dir = ws / "profiles" / core::version_name(r.version);

  auto ncu = o.ncu ? std::optional<fs::path>(*o.ncu) : core::find_tool("ncu");
  harness::SmiReport smi = harness::query_nvidia_smi();
  if (!smi.available) {
    throw Error("no NVIDIA GPU found (nvidia-smi: " + (smi.error.empty() ? "no GPU listed" : smi.error) +
                    "); kgo profile runs Nsight Compute on a GPU: run it on the GPU machine" +
                    (ncu ? "" : " (ncu is missing too)"),
                ExitCode::no_gpu);
  }
  if (!ncu || !fs::exists(*ncu)) {
    throw Error("Nsight Compute (ncu) not found in " + core::tool_search_text() +
                    "; install Nsight Compute or pass --ncu PATH",
                ExitCode::no_gpu);
  }
  r.ncu_path = ncu->string();
  auto ver = core::run_process({r.ncu_path, "--version"});
  std::smatch m;
  if (std::regex_search(ver.out, m, std::regex(R"(Version\s+(\S+))"))) r.ncu_version = m[1].str();

  harness::Target target = harness::workspace_target(ws, cfg, o.target);
  if (target.device != "cuda") {
    throw Error("kgo profile needs the kernel on a CUDA device (--device " + target.device + ")", ExitCode::no_gpu);
  }
  std::vector<long long> shape = first_shape(target);
  Scratch scratch{core::make_temp_dir(fs::temp_directory_path(), "kgo-profile-")};
  std::error_code dir_ec;
  fs::create_directories(r.dir, dir_ec);
  if (dir_ec) throw Error("cannot create " + r.dir.string() + ": " + dir_ec.message(), ExitCode::not_writable);

  std::vector<std::string> base = {r.ncu_path, "--csv", "--page", "raw", "--clock-control", "none",
                                   "--target-processes", "all"};
  std::vector<std::string> full = base;
  full.insert(full.end(), {"--set", o.set, "--metrics", join(requested_metrics(), ",")});
  auto with_filters = [&](std::vector<std::string> argv, bool nvtx) {
    if (o.kernel_regex) argv.insert(argv.end(), {"-k", "regex:" + *o.kernel_regex});
    else if (nvtx) argv.insert(argv.end(), {"--nvtx", "--nvtx-include", "kgo_run/"});
    if (o.launch_skip) argv.insert(argv.end(), {"--launch-skip", std::to_string(*o.launch_skip)});
    if (o.kernel_regex || o.launch_skip) argv.insert(argv.end(), {"--launch-count", "1"});
    return argv;
  };

  bool nvtx = !o.summary_first && !o.kernel_regex;
  r.selection = o.kernel_regex ? "kernel regex '" + *o.kernel_regex + "'" : "NVTX range kgo_run around the profiled call";
  Pass p;
  if (nvtx || o.kernel_regex) {
    p = ncu_pass(target, shape, with_filters(full, nvtx), scratch.dir, r.dir, o);
    ++r.ncu_passes;
    if (p.report.launches.empty() && p.log.find("==ERROR==") != std::string::npos &&
        p.log.find("etric") != std::string::npos) {  // a metric this ncu/GPU lacks: the set alone
      p = ncu_pass(target, shape, with_filters(std::vector<std::string>(full.begin(), full.end() - 2), nvtx),
                   scratch.dir, r.dir, o);
      ++r.ncu_passes;
      r.selection += " (extra --metrics rejected by ncu; the set's own metrics only)";
    }
  }
  std::string all_text = p.log + "\n" + p.run.process.err;
  if (auto msg = no_counter_message(all_text); msg && p.report.launches.empty()) {
    r.counters = false;
    r.counters_message = *msg;
  }
  if (r.counters && p.report.launches.empty() && !o.kernel_regex) {
    if (r.ncu_passes > 0) fail_for_harness(p);
    // Per-kernel summary first: every launch with its duration, then the chosen one in full.
    Pass s = ncu_pass(target, shape, [&] {
      auto a = base;
      a.insert(a.end(), {"--metrics", "gpu__time_duration.sum", "--print-kernel-base", "function"});
      return a;
    }(), scratch.dir, r.dir, o);
    ++r.ncu_passes;
    if (auto msg = no_counter_message(s.log + "\n" + s.run.process.err); msg && s.report.launches.empty()) {
      r.counters = false;
      r.counters_message = *msg;
    } else {
      fail_for_harness(s);
      auto infos = launch_infos(s.report);
      auto names = harness_launches(s.run);
      // The profiled call runs last: take the last launch of a kernel the harness saw, else the last one.
      std::optional<size_t> pick;
      for (size_t i = 0; i < infos.size(); ++i) {
        for (const auto& n : names) {
          if (infos[i].kernel.find(n) != std::string::npos) pick = i;
        }
      }
      if (!pick && !infos.empty()) pick = infos.size() - 1;
      if (!pick) {
        throw Error("ncu profiled no kernel launch at all; ncu said:\n" + tail(s.log + s.run.process.err),
                    ExitCode::failure);
      }
      int skip = 0;
      for (size_t i = 0; i < *pick; ++i) skip += infos[i].kernel == infos[*pick].kernel;
      r.selection = fmt::format("per-kernel summary first ({} launches), then launch {} of '{}' (--launch-skip {})",
                                infos.size(), skip, infos[*pick].kernel, skip);
      auto argv = full;
      argv.insert(argv.end(), {"-k", "regex:^" + regex_escape(infos[*pick].kernel) + "$", "--launch-skip",
                               std::to_string(skip), "--launch-count", "1"});
      p = ncu_pass(target, shape, argv, scratch.dir, r.dir, o);
      ++r.ncu_passes;
      if (auto msg = no_counter_message(p.log + "\n" + p.run.process.err); msg && p.report.launches.empty()) {
        r.counters = false;
        r.counters_message = *msg;
      }
    }
  }
  r.command = p.argv;
  r.ncu_seconds = p.run.process.seconds;
  r.chosen.reset();
  std::error_code ec;
  core::LockedWorkspace lock(ws);
  fs::create_directories(r.dir, ec);
  if (ec) throw Error("cannot create " + r.dir.string() + ": " + ec.message(), ExitCode::not_writable);
  auto rel = [&](const std::string& name) { return (fs::path("profiles") / core::version_name(r.version) / name).string(); };

  if (!r.counters) {
    r.timing = timing_only(target, shape, o);
    r.verdict.bottleneck = "unknown";
    r.verdict.rule = "none: hardware counters unavailable";
    r.verdict.evidence = "ncu could not read the GPU's performance counters (" + r.counters_message +
                         "); timing only: " +
                         (r.timing.contains("median_us") ? fmt::format("median {:.2f} us at {}",
                                                                       r.timing["median_us"].get<double>(),
                                                                       core::shape_to_string(shape))
                                                         : r.timing.value("message", std::string("no timing")));
    r.verdict.inference = "no counter-based bottleneck classification is possible on this machine";
    r.verdict.action = "compare the time with the roofline targets (kgo roofline), or profile on a machine "
                       "that grants counter access (root, or NVreg_RestrictProfilingToAdminUsers=0)";
    std::string md = "# Nsight Compute summary (measured)\n\nHardware counters are not available here: " + r.counters_message +
                     "\n\nTiming-only evidence: " + r.verdict.evidence + "\n";
    core::write_file_atomic(r.dir / "ncu_summary.md", md);
    core::write_file_atomic(r.dir / "ncu_log.txt", p.log + "\n----- stderr -----\n" + tail(p.run.process.err, 20000));
    r.files = {rel("ncu_summary.md"), rel("ncu_log.txt"), rel("run_once_request.json")};
  } else {
    if (p.report.launches.empty()) {
      fail_for_harness(p);
      throw Error("ncu profiled no kernel (" + r.selection + "); check --kernel-regex / --launch-skip. ncu said:\n" +
                      tail(p.log + p.run.process.err),
                  ExitCode::failure);
    }
    r.launches = launch_infos(p.report);
    auto idx = choose_launch(r.launches, harness_launches(p.run));
    const NcuLaunch& launch = p.report.launches[*idx];
    r.chosen = r.launches[*idx];
    r.numbers = extract_numbers(launch);
    r.verdict = classify(r.numbers, r.thresholds);
    ProfileHeader h;
    h.kernel = launch.kernel;
    h.gpu = smi.gpus.empty() ? "" : smi.gpus[0].name;
    h.clock_control = "none (SM clocks not locked by ncu)";
    h.ncu_version = r.ncu_version;
    h.command = shell_join(p.argv);
    h.set = o.set;
    std::string verdict_md = fmt::format(
        "- bottleneck: **{}**\n- rule: {}\n- evidence: {}\n- inference: {}\n- action: {}\n- selection: {}\n",
        r.verdict.bottleneck, r.verdict.rule, r.verdict.evidence, r.verdict.inference, r.verdict.action, r.selection);
    if (r.launches.size() > 1) {
      verdict_md += "\nLaunches in the report:\n\n| ID | Kernel | Duration (ns) |\n|---|---|---|\n";
      for (const auto& l : r.launches) {
        verdict_md += fmt::format("| {} | {} | {} |\n", l.id, l.kernel,
                                  l.duration_ns ? fmt::format("{:.0f}", *l.duration_ns) : "n/a");
      }
    }
    core::write_file_atomic(r.dir / "ncu_raw.csv", p.log);
    core::write_file_atomic(r.dir / "ncu_summary.md", render_summary(h, launch, verdict_md));
    core::write_file_atomic(r.dir / "ncu_details.md", render_details(h, launch));
    r.files = {rel("ncu_raw.csv"), rel("ncu_summary.md"), rel("ncu_details.md"), rel("run_once_request.json")};
  }
  r.total_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  core::write_file_atomic(r.dir / "profile.json", to_json(r).dump(2) + "\n");
  r.files.push_back(rel("profile.json"));
  nlohmann::json ev = profile_evidence(r);
  r.record_note = update_record_field(ws, r.version, "profile_evidence", ev);
  r.total_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace kgo::profiling
