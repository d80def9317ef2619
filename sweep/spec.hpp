#pragma once
// A sweep: a JSON spec (schemas/sweep/spec.schema.json) expanded into jobs, each one kgo step on one
// target (a workspace copy, or a workspace made from a kernel and its reference) for one platform,
// shape and dtype. The expanded plan is kept in <dir>/sweep.json; results in <dir>/results/<id>.json.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kgo::sweep {

namespace fs = std::filesystem;

struct Job {
  int id = 0;
  std::string name;                 // target name: workspace folder or kernel entry name
  std::optional<fs::path> workspace;  // copy this workspace ...
  std::optional<fs::path> kernel;     // ... or init one from this kernel
  std::optional<fs::path> reference;
  std::string framework;            // for kernels ("" = kgo init's default)
  std::string platform;             // "" = the workspace's own
  std::string shape, dtype;         // "" = the workspace's own
  std::string step;                 // check, bench, baseline, profile, propose, status
  std::string device;               // auto, cuda, cpu
  std::vector<std::string> args;    // extra arguments for the step
  // "softmax/H200/4096x4096/fp32/bench": what a table row and a progress line call this job.
  std::string label() const;
  bool wants_gpu() const { return device != "cpu"; }
};

struct Sweep {
  fs::path dir;                     // absolute sweep folder
  std::string name;
  std::string spec_sha256;          // of the canonical spec JSON, to refuse mixing two sweeps in one dir
  nlohmann::json spec;
  double timeout_s = 1800;          // per attempt
  int retries = 1;                  // extra attempts after a timeout, crash or infrastructure error
  std::vector<Job> jobs;

  fs::path results_dir() const { return dir / "results"; }
  fs::path result_file(int id) const;
  fs::path job_dir(int id) const;
};

// Reads and validates `spec_file`, resolves its paths against the spec's folder and expands it.
// Throws Error(usage) for unreadable JSON or missing files, Error(schema_invalid) for a bad spec.
Sweep expand_spec(const fs::path& spec_file, const fs::path& dir);

// Writes <dir>/sweep.json (creating the folder) or, when one exists, checks it holds the same spec:
// a folder never mixes the results of two different sweeps (Error(usage) naming both fixes).
void save_or_match_plan(const Sweep& s);

// Loads <dir>/sweep.json; throws Error(usage) when `dir` holds no sweep.
Sweep load_plan(const fs::path& dir);

// Ids of the jobs that have no result file yet.
std::vector<int> jobs_without_result(const Sweep& s);

nlohmann::json to_json(const Job& j);

}  // namespace kgo::sweep
