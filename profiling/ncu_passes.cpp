#include "profiling/ncu_passes.hpp"

#include <cstdlib>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/files.hpp"

namespace kgo::profiling {

namespace fs = std::filesystem;

namespace {

// ncu's own words when the counters cannot be read (permissions, containers, sandboxes).
const char* kNoCounters[] = {"ERR_NVGPUCTRPERM", "LibraryNotLoaded", "Failed to initialize the profiler",
                             "profiling is not supported", "Profiling is not supported",
                             "does not have permission to access NVIDIA GPU Performance Counters"};

std::string regex_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::string("\\^$.|?*+()[]{}").find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

// The kernel's cell under ncu: Landlock and another user, not the namespaces. ncu's injected library reports to
// the ncu process over channels a fresh set of namespaces cuts, and the profiled run then hangs (seen on an H200:
// default cell, no answer in 150 s; KGO_CELL=landlock, 11 s). A KGO_CELL the user set (landlock, off) stands.
std::map<std::string, std::string> ncu_cell_env() {
  const char* set = std::getenv("KGO_CELL");
  if (set && (std::string(set) == "landlock" || std::string(set) == "off")) return {};
  return {{"KGO_CELL", "landlock"}};
}

// The request file goes to `request_dir` (profiles/v<N>/, so the recorded command can be re-run);
// ncu's log goes to `scratch`.
Pass ncu_pass(const harness::Target& t, const std::vector<long long>& shape, std::vector<std::string> argv,
              const fs::path& scratch, const fs::path& request_dir, const ProfileOptions& o) {
  Pass p;
  fs::path log = scratch / "ncu.csv";
  std::error_code ec;
  fs::remove(log, ec);
  argv.insert(argv.begin() + 1, {"--log-file", log.string()});
  p.run = run_once(t, shape, argv, ncu_cell_env(), request_dir, o.warmup, o.timeout_s);
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

}  // namespace

std::string tail(const std::string& s, size_t n) { return s.size() <= n ? s : s.substr(s.size() - n); }

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

Pass NcuPlan::run(const std::vector<std::string>& argv) const {
  return ncu_pass(target, shape, argv, scratch, request_dir, o);
}

std::vector<std::string> NcuPlan::filtered(std::vector<std::string> argv, bool nvtx) const {
  if (o.kernel_regex) argv.insert(argv.end(), {"-k", "regex:" + *o.kernel_regex});
  else if (nvtx) argv.insert(argv.end(), {"--nvtx", "--nvtx-include", "kgo_run/"});
  if (o.launch_skip) argv.insert(argv.end(), {"--launch-skip", std::to_string(*o.launch_skip)});
  if (o.kernel_regex || o.launch_skip) argv.insert(argv.end(), {"--launch-count", "1"});
  return argv;
}

namespace {

// Notes in `r` when ncu's output says the counters are closed and it profiled nothing.
bool counters_closed(const Pass& p, ProfileResult& r) {
  auto msg = no_counter_message(p.log + "\n" + p.run.process.err);
  if (!msg || !p.report.launches.empty()) return false;
  r.counters = false;
  r.counters_message = *msg;
  return true;
}

// The per-kernel summary pass (every launch with its duration), then the chosen launch in full: the
// last launch of a kernel the harness saw (the profiled call runs last), else the last one.
Pass summary_then_chosen(const NcuPlan& plan, ProfileResult& r) {
  auto summary_argv = plan.base;
  summary_argv.insert(summary_argv.end(), {"--metrics", "gpu__time_duration.sum", "--print-kernel-base", "function"});
  Pass s = plan.run(summary_argv);
  ++r.ncu_passes;
  if (counters_closed(s, r)) return s;
  fail_for_harness(s);
  auto infos = launch_infos(s.report);
  std::optional<size_t> pick;
  for (size_t i = 0; i < infos.size(); ++i) {
    for (const auto& n : harness_launches(s.run)) {
      if (infos[i].kernel.find(n) != std::string::npos) pick = i;
    }
  }
  if (!pick && !infos.empty()) pick = infos.size() - 1;
  if (!pick) {
    throw Error("ncu profiled no kernel launch at all; ncu said:\n" + tail(s.log + s.run.process.err), ExitCode::failure);
  }
  int skip = 0;
  for (size_t i = 0; i < *pick; ++i) skip += infos[i].kernel == infos[*pick].kernel;
  r.selection = fmt::format("per-kernel summary first ({} launches), then launch {} of '{}' (--launch-skip {})",
                            infos.size(), skip, infos[*pick].kernel, skip);
  auto argv = plan.full;
  argv.insert(argv.end(), {"-k", "regex:^" + regex_escape(infos[*pick].kernel) + "$", "--launch-skip",
                           std::to_string(skip), "--launch-count", "1"});
  Pass p = plan.run(argv);
  ++r.ncu_passes;
  counters_closed(p, r);
  return p;
}

}  // namespace

Pass profile_passes(const NcuPlan& plan, ProfileResult& r) {
  const ProfileOptions& o = plan.o;
  bool nvtx = !o.summary_first && !o.kernel_regex;
  r.selection = o.kernel_regex ? "kernel regex '" + *o.kernel_regex + "'" : "NVTX range kgo_run around the profiled call";
  Pass p;
  if (nvtx || o.kernel_regex) {
    p = plan.run(plan.filtered(plan.full, nvtx));
    ++r.ncu_passes;
    if (p.report.launches.empty() && p.log.find("==ERROR==") != std::string::npos &&
        p.log.find("etric") != std::string::npos) {  // a metric this ncu/GPU lacks: the set alone
      p = plan.run(plan.filtered(std::vector<std::string>(plan.full.begin(), plan.full.end() - 2), nvtx));
      ++r.ncu_passes;
      r.selection += " (extra --metrics rejected by ncu; the set's own metrics only)";
    }
  }
  counters_closed(p, r);
  if (r.counters && p.report.launches.empty() && !o.kernel_regex) {
    if (r.ncu_passes > 0) fail_for_harness(p);
    p = summary_then_chosen(plan, r);
  }
  return p;
}

}  // namespace kgo::profiling
