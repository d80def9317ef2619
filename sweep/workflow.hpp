#pragma once
// `kgo sweep run|status|cancel|exec` as library calls that return what happened; cli/sweep.cpp
// binds their options and renders the results.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/backend.hpp"

namespace kgo::sweep {

struct RunResult {
  Sweep sweep;
  const Backend* backend = nullptr;
  RunSummary summary;
  bool failed = false;  // a job failed, timed out, errored, or (when the backend waited) left no result
};

// Expands `spec` into `dir` (default: <spec stem>.sweep), holds the folder's runner lock, keeps the plan
// (a different plan in the folder is refused) and runs the jobs without a result on `o.backend`.
RunResult run_sweep(const std::filesystem::path& spec, std::filesystem::path dir, const RunOptions& o);

struct StatusResult {
  Sweep sweep;
  nlohmann::json counts;  // status -> results so far, plus "missing"
  nlohmann::json queue;   // Slurm state -> array tasks still queued
};
StatusResult sweep_status(const std::filesystem::path& dir);

struct CancelResult {
  bool had_slurm = false;                  // the sweep was ever submitted to Slurm
  std::vector<std::string> slurm_cancelled;
  bool local_runner_stopped = false;
};
// Cancels the sweep's Slurm tasks (all, or those running `jobs`) and, for the whole sweep, a local runner.
CancelResult cancel_sweep(const std::filesystem::path& dir, const std::vector<int>& jobs);

// Runs one job: `job`, or the job of Slurm array task `task` of `submission`.
nlohmann::json exec_job(const std::filesystem::path& dir, std::optional<int> job, std::optional<int> submission,
                        std::optional<int> task);

// Whether `counts` (status -> number) hold a failure; `missing_fails`: a job without a result failed too.
bool has_failures(const nlohmann::json& counts, bool missing_fails);

}  // namespace kgo::sweep
