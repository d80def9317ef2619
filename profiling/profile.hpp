#pragma once
// `kgo profile`: runs Nsight Compute (`ncu --csv --page raw --clock-control none`) on the workspace
// kernel through the harness's run-once, picks the right launch (the NVTX range around the profiled
// call, a --kernel-regex, or a per-kernel summary pass first), writes profiles/v<N>/ (raw CSV,
// ncu_summary.md, ncu_details.md, profile.json) and the record's profile_evidence. Without
// hardware counters it says so and falls back to timing-only evidence.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/target.hpp"
#include "profiling/verdict.hpp"

namespace kgo::profiling {

struct ProfileOptions {
  std::optional<std::string> version;       // "v3"; default: latest record (0 when none)
  std::optional<std::string> kernel_regex;  // ncu -k regex:<R>
  std::optional<int> launch_skip;           // ncu --launch-skip N (with --launch-count 1)
  std::string set = "detailed";             // basic | detailed | full
  std::vector<std::string> thresholds;      // NAME=VALUE overrides
  std::optional<std::filesystem::path> thresholds_file;  // JSON object of overrides
  bool summary_first = false;               // skip NVTX; list launches first, then profile one
  std::optional<std::string> ncu;           // --ncu PATH
  int warmup = 3;
  int timeout_s = 900;
  harness::TargetOptions target;
};

struct LaunchInfo {
  int id = 0;
  std::string kernel;
  std::optional<double> duration_ns;
};

struct ProfileResult {
  std::filesystem::path workspace;
  int version = 0;
  std::filesystem::path dir;                 // profiles/v<N>
  std::string ncu_path, ncu_version;
  std::vector<std::string> command;          // the (last) ncu command line
  std::string clock_control = "none";
  std::string set;
  std::string selection;                     // how the launch was chosen
  bool counters = true;
  std::string counters_message;              // why not, in ncu's words
  std::vector<LaunchInfo> launches;
  std::optional<LaunchInfo> chosen;
  SolNumbers numbers;
  Verdict verdict;
  Thresholds thresholds;
  nlohmann::json timing;                     // timing-only evidence (no counters), else null
  std::vector<std::string> files;            // written, relative to the workspace
  std::string record_note;                   // "" when the record was updated
  double ncu_seconds = 0, total_seconds = 0;
  int ncu_passes = 0;
};

ProfileResult run_profile(const std::filesystem::path& workspace, const ProfileOptions& opts);

// The launch a report's rows point at: the longest among those whose kernel name contains one
// of `preferred` (Triton kernel names the harness saw), else the longest overall.
std::optional<size_t> choose_launch(const std::vector<LaunchInfo>& launches,
                                    const std::vector<std::string>& preferred);

// The record's profile_evidence object for a result.
nlohmann::json profile_evidence(const ProfileResult& r);

nlohmann::json to_json(const ProfileResult& r);
std::string render_text(const ProfileResult& r);

// Without counters: the verdict from the timing-only evidence (r.timing) at `shape`, and the
// ncu_summary.md that says why there are no counters.
Verdict timing_only_verdict(const ProfileResult& r, const std::string& shape);
std::string render_timing_only_md(const ProfileResult& r);
// The verdict block of ncu_summary.md (and the launch table when the report holds several).
std::string render_verdict_md(const ProfileResult& r);

}  // namespace kgo::profiling
