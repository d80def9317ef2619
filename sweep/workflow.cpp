#include "sweep/workflow.hpp"

#include <chrono>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/lock.hpp"
#include "sweep/job.hpp"

namespace kgo::sweep {

namespace fs = std::filesystem;

const std::vector<Backend>& backends() {
  static const std::vector<Backend> all = {
      {"local", "ran", &run_local, [](const RunOptions&) { return true; }},
      {"slurm", "submitted", &run_slurm, [](const RunOptions& o) { return o.wait; }},
  };
  return all;
}

const Backend& find_backend(const std::string& name) {
  std::string names;
  for (const Backend& b : backends()) {
    if (name == b.name) return b;
    names += (names.empty() ? "" : ", ") + std::string(b.name);
  }
  throw Error(fmt::format("--backend '{}' is not a sweep backend; use one of: {}", name, names), ExitCode::usage);
}

bool has_failures(const nlohmann::json& c, bool missing_fails) {
  int bad = c.value("fail", 0) + c.value("timeout", 0) + c.value("error", 0) + (missing_fails ? c.value("missing", 0) : 0);
  return bad > 0;
}

RunResult run_sweep(const fs::path& spec, fs::path dir, const RunOptions& o) {
  const Backend& b = find_backend(o.backend);
  if (dir.empty()) dir = spec.stem().string() + ".sweep";
  RunResult r{expand_spec(spec, dir), &b, {}, false};
  fs::create_directories(r.sweep.dir);
  // Two runners on one folder would run every job twice and race on its results.
  core::FileLock runner(r.sweep.dir / ".runner.lock",
                        "sweep folder " + r.sweep.dir.string() + " (a kgo sweep run is using it)",
                        std::chrono::milliseconds(0));
  save_or_match_plan(r.sweep);
  r.summary = b.run(r.sweep, o);
  r.failed = b.waited(o) && has_failures(r.summary.counts, /*missing_fails=*/true);
  return r;
}

StatusResult sweep_status(const fs::path& dir) {
  StatusResult r{load_plan(dir), {}, nlohmann::json::object()};
  r.counts = result_counts(r.sweep);
  for (const auto& t : slurm_queue(r.sweep)) r.queue[t.state] = r.queue.value(t.state, 0) + 1;
  return r;
}

CancelResult cancel_sweep(const fs::path& dir, const std::vector<int>& jobs) {
  Sweep s = load_plan(dir);
  CancelResult r;
  r.had_slurm = fs::exists(s.dir / "slurm" / "submissions.json");
  if (r.had_slurm) r.slurm_cancelled = slurm_cancel(s, jobs);
  r.local_runner_stopped = jobs.empty() && local_cancel(s);
  return r;
}

nlohmann::json exec_job(const fs::path& dir, std::optional<int> job, std::optional<int> submission,
                        std::optional<int> task) {
  Sweep s = load_plan(dir);
  int id;
  if (job) id = *job;
  else if (submission && task) id = job_for_task(s, *submission, *task);
  else throw Error("kgo sweep exec needs --job ID, or --submission N --task I", ExitCode::usage);
  return run_job(s, id);
}

}  // namespace kgo::sweep
