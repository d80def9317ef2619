#pragma once
// The Nsight Compute passes of `kgo profile` (profile.cpp): the command lines, how a launch is chosen
// (the NVTX range, the user's kernel regex, or a per-kernel summary pass first), and what ncu's output
// says about the counters.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "harness/target.hpp"
#include "profiling/ncu_csv.hpp"
#include "profiling/profile.hpp"
#include "profiling/runner.hpp"

namespace kgo::profiling {

// The last `n` characters of `s`.
std::string tail(const std::string& s, size_t n = 1500);

// One ncu run of the harness's run-once: its argv, log (the CSV) and parsed report.
struct Pass {
  HarnessRun run;
  std::string log;
  NcuReport report;
  std::vector<std::string> argv;
};

std::vector<LaunchInfo> launch_infos(const NcuReport& rep);
// The kernels the harness saw launched during the run (its result's "launches").
std::vector<std::string> harness_launches(const HarnessRun& run);
// Throws Error(harness_error) when the harness under ncu did not PASS.
void fail_for_harness(const Pass& p);

// The ncu command lines of one profile and how to run them on the target.
struct NcuPlan {
  const harness::Target& target;
  std::vector<long long> shape;
  std::filesystem::path scratch, request_dir;  // ncu's log; the request file (kept with the profile)
  const ProfileOptions& o;
  std::vector<std::string> base, full;         // plain; with the set and kgo's metrics

  Pass run(const std::vector<std::string>& argv) const;
  // `argv` limited to the user's kernel regex and launch skip, else (with `nvtx`) to the kgo_run range.
  std::vector<std::string> filtered(std::vector<std::string> argv, bool nvtx) const;
};

// The profiling passes: the NVTX range (or the user's kernel regex) in one pass, retried with the set's
// own metrics if ncu rejects kgo's extra ones; the summary-first route when that profiled nothing.
// Sets r.selection, r.ncu_passes, and r.counters / r.counters_message when the counters are closed.
Pass profile_passes(const NcuPlan& plan, ProfileResult& r);

}  // namespace kgo::profiling
