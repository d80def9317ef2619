#pragma once
// The sweep backends behind one interface (Backend): `local` (a worker per visible GPU, CPU jobs in
// parallel) and `slurm` (one job array per submission). Each runs only jobs without a result, so
// running again resumes, and executes each job as `kgo sweep exec DIR --job ID`. A new backend is one
// entry of backends() (docs/howto/add-a-sweep-backend.md).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/spec.hpp"

namespace kgo::sweep {

struct RunOptions {
  std::string backend = "local";          // local | slurm
  std::optional<std::vector<std::string>> gpus;  // local: GPU ids to use (default: every visible one)
  int cpu_jobs = 0;                       // local: parallel CPU-only jobs (0: the CPU count)
  bool progress = true;                   // local: a progress line on stderr
  int throttle = 0;                       // slurm: %K, array tasks running at once (0: no limit)
  std::string partition;                  // slurm: --partition
  std::vector<std::string> sbatch_args;   // slurm: extra sbatch arguments
  bool wait = false;                      // slurm: poll until the submitted tasks leave the queue
};

struct RunSummary {
  std::string backend;
  int jobs = 0;                 // in the sweep
  int already_done = 0;         // had a result before this run
  int queued_elsewhere = 0;     // slurm: still queued from an earlier submission (not resubmitted)
  std::vector<int> submitted;   // ids run (local) or submitted (slurm) now
  std::vector<std::string> workers;  // local: "gpu:0", "gpu:1", "cpu" x N
  std::string slurm_job_id;     // slurm: the array job id ("" when nothing was submitted)
  double seconds = 0;
  nlohmann::json counts;        // status -> number of results after the run
};

// One way to run a sweep's jobs. `run` runs or submits every job of the sweep without a result.
struct Backend {
  const char* name;   // what --backend names
  const char* verb;   // what run() did to the jobs it took: "ran" or "submitted"
  RunSummary (*run)(const Sweep& s, const RunOptions& o);
  // Whether run() returned only after every job it took ended (a job still without a result then failed).
  bool (*waited)(const RunOptions& o);
};

const std::vector<Backend>& backends();
// The backend named `name`; a usage error naming every backend otherwise.
const Backend& find_backend(const std::string& name);

struct TaskState {
  int job = -1;
  std::string state;            // PENDING, RUNNING, ...
  std::string slurm_id;         // "<array job>_<task>"
};

RunSummary run_local(const Sweep& s, const RunOptions& o);
RunSummary run_slurm(const Sweep& s, const RunOptions& o);

// Array tasks of this sweep still in Slurm's queue (from `squeue --json`); empty without squeue.
std::vector<TaskState> slurm_queue(const Sweep& s);

// scancel for the whole sweep, or for the array tasks running `jobs`; returns the ids cancelled.
std::vector<std::string> slurm_cancel(const Sweep& s, const std::vector<int>& jobs);

// Local runner: asks the `kgo sweep run` of this folder to start no new job; false when none runs.
bool local_cancel(const Sweep& s);

// status -> count over the sweep's result files, plus "missing".
nlohmann::json result_counts(const Sweep& s);

nlohmann::json to_json(const RunSummary& r);

}  // namespace kgo::sweep
