// The Slurm backend: one job array per submission (sbatch --parsable --array=0-N%K), array task i runs
// the i-th job of slurm/submit-<n>.json; results land in the sweep folder, which must be on a file
// system the compute nodes share. Queue state comes from `squeue --json`; no accounting daemon is used.
#include <map>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/process.hpp"
#include "core/workspace.hpp"
#include "sweep/backend.hpp"

namespace kgo::sweep {

namespace {

// Slurm refuses larger arrays by default (MaxArraySize 1001), so bigger sweeps are split.
constexpr size_t k_max_array = 1000;

fs::path slurm_dir(const Sweep& s) { return s.dir / "slurm"; }

core::ProcessResult slurm_tool(const std::vector<std::string>& argv) {
  if (!core::find_in_path(argv[0])) {
    throw Error(fmt::format("{} not found in PATH: the slurm backend needs Slurm's client tools (Debian: "
                            "apt-get install slurm-client) and SLURM_CONF pointing at the cluster", argv[0]),
                ExitCode::failure);
  }
  core::ProcessOptions o;
  o.timeout = std::chrono::seconds(60);
  return core::run_process(argv, o);
}

nlohmann::json submissions(const Sweep& s) {
  auto text = core::try_read_file(slurm_dir(s) / "submissions.json");
  auto v = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json::array();
  return v.is_array() ? v : nlohmann::json::array();
}

// "0-3%2", "1,4-6": the task indices an unsplit pending array still holds.
std::vector<int> task_indices(const std::string& spec) {
  std::vector<int> out;
  std::string body = spec.substr(0, spec.find('%'));
  size_t pos = 0;
  while (pos < body.size()) {
    size_t comma = body.find(',', pos);
    std::string part = body.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? body.size() : comma + 1;
    auto dash = part.find('-');
    try {
      int a = std::stoi(part.substr(0, dash));
      int b = dash == std::string::npos ? a : std::stoi(part.substr(dash + 1));
      for (int i = a; i <= b; ++i) out.push_back(i);
    } catch (...) {
    }
  }
  return out;
}

std::string write_script(const Sweep& s, int n) {
  fs::path script = slurm_dir(s) / fmt::format("submit-{}.sh", n);
  std::string self = fs::read_symlink("/proc/self/exe").string();
  auto q = [](const std::string& x) { return "'" + x + "'"; };  // paths hold no quote (checked below)
  if (self.find('\'') != std::string::npos || s.dir.string().find('\'') != std::string::npos) {
    throw Error("the kgo path and the sweep folder must not contain a single quote", ExitCode::usage);
  }
  // The array's GPU tasks on one node and GPU share one warm judge (harness/warm_judge.hpp), which stops a
  // minute after the last of them rather than holding the GPU for the default idle time.
  core::write_file_atomic(script, fmt::format("#!/bin/sh\n# kgo sweep '{}', submission {}\n"
                                              "if [ -n \"${{CUDA_VISIBLE_DEVICES:-}}\" ]; then\n"
                                              "  : \"${{KGO_HARNESS_DAEMON:=auto}}\" \"${{KGO_HARNESS_IDLE_S:=60}}\"\n"
                                              "  export KGO_HARNESS_DAEMON KGO_HARNESS_IDLE_S\nfi\n"
                                              "exec {} sweep exec {} --submission {} --task \"$SLURM_ARRAY_TASK_ID\"\n",
                                              s.name, n, q(self), q(s.dir.string()), n));
  fs::permissions(script, fs::perms::owner_all, fs::perm_options::add);
  return script.string();
}

}  // namespace

std::vector<TaskState> slurm_queue(const Sweep& s) {
  nlohmann::json subs = submissions(s);
  if (subs.empty() || !core::find_in_path("squeue")) return {};
  std::map<std::string, const nlohmann::json*> by_id;
  for (const auto& sub : subs) by_id[sub.at("slurm_job_id").get<std::string>()] = &sub;
  auto p = slurm_tool({"squeue", "--json"});
  auto v = nlohmann::json::parse(p.out, nullptr, false);
  if (!p.ok() || v.is_discarded() || !v.contains("jobs")) {
    throw Error("squeue --json failed (" + p.err.substr(0, 300) + "); is the cluster up and SLURM_CONF right?",
                ExitCode::failure);
  }
  std::vector<TaskState> out;
  for (const auto& j : v["jobs"]) {
    if (!j.contains("array_job_id") || !j["array_job_id"].is_number()) continue;
    std::string array = std::to_string(j["array_job_id"].get<long long>());
    auto it = by_id.find(array);
    if (it == by_id.end()) continue;
    const auto& ids = it->second->at("jobs");
    std::string state = j.value("job_state", "");
    std::vector<int> tasks;
    if (j.contains("array_task_id") && j["array_task_id"].is_number()) tasks.push_back(j["array_task_id"].get<int>());
    else if (j.contains("array_task_string") && j["array_task_string"].is_string())
      tasks = task_indices(j["array_task_string"].get<std::string>());
    for (int t : tasks) {
      if (t < 0 || t >= static_cast<int>(ids.size())) continue;
      out.push_back({ids[static_cast<size_t>(t)].get<int>(), state, fmt::format("{}_{}", array, t)});
    }
  }
  return out;
}

RunSummary run_slurm(const Sweep& s, const RunOptions& o) {
  auto t0 = std::chrono::steady_clock::now();
  RunSummary r;
  r.backend = "slurm";
  r.jobs = static_cast<int>(s.jobs.size());
  fs::create_directories(slurm_dir(s) / "logs");
  std::set<int> queued;
  for (const auto& t : slurm_queue(s)) queued.insert(t.job);
  std::vector<int> todo;
  for (int id : jobs_without_result(s)) {
    if (queued.count(id)) ++r.queued_elsewhere;
    else todo.push_back(id);
  }
  r.already_done = r.jobs - static_cast<int>(jobs_without_result(s).size());
  nlohmann::json subs = submissions(s);
  for (size_t start = 0; start < todo.size(); start += k_max_array) {
    std::vector<int> chunk(todo.begin() + static_cast<long>(start),
                           todo.begin() + static_cast<long>(std::min(todo.size(), start + k_max_array)));
    int n = static_cast<int>(subs.size());
    core::write_file_atomic(slurm_dir(s) / fmt::format("submit-{}.json", n), nlohmann::json(chunk).dump() + "\n");
    std::string array = fmt::format("--array=0-{}", chunk.size() - 1);
    if (o.throttle > 0) array += fmt::format("%{}", o.throttle);
    std::vector<std::string> argv = {"sbatch", "--parsable", array, "--job-name", "kgo-sweep-" + s.name,
                                     "--output", (slurm_dir(s) / "logs" / "%A_%a.out").string(),
                                     "--chdir", s.dir.string(),
                                     "--time", std::to_string(static_cast<long long>(s.timeout_s * (s.retries + 1) / 60) + 5)};
    if (!o.partition.empty()) argv.insert(argv.end(), {"--partition", o.partition});
    argv.insert(argv.end(), o.sbatch_args.begin(), o.sbatch_args.end());
    argv.push_back(write_script(s, n));
    auto p = slurm_tool(argv);
    std::string id = p.out.substr(0, p.out.find_first_of(";\n"));
    if (!p.ok() || id.empty()) {
      throw Error("sbatch refused the sweep's job array: " + p.err.substr(0, 500), ExitCode::failure);
    }
    subs.push_back({{"slurm_job_id", id}, {"jobs", chunk}, {"submitted_at", core::utc_now_iso()}});
    core::write_file_atomic(slurm_dir(s) / "submissions.json", subs.dump(1) + "\n");
    r.slurm_job_id = r.slurm_job_id.empty() ? id : r.slurm_job_id + "," + id;
    r.submitted.insert(r.submitted.end(), chunk.begin(), chunk.end());
  }
  while (o.wait && !slurm_queue(s).empty()) std::this_thread::sleep_for(std::chrono::milliseconds(500));
  r.counts = result_counts(s);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

std::vector<std::string> slurm_cancel(const Sweep& s, const std::vector<int>& jobs) {
  std::vector<std::string> ids;
  if (jobs.empty()) {
    for (const auto& sub : submissions(s)) ids.push_back(sub.at("slurm_job_id").get<std::string>());
  } else {
    std::set<int> want(jobs.begin(), jobs.end());
    for (const auto& t : slurm_queue(s)) {
      if (want.count(t.job)) ids.push_back(t.slurm_id);
    }
  }
  if (ids.empty()) return ids;
  std::vector<std::string> argv = {"scancel"};
  argv.insert(argv.end(), ids.begin(), ids.end());
  auto p = slurm_tool(argv);
  if (!p.ok()) throw Error("scancel failed: " + p.err.substr(0, 500), ExitCode::failure);
  return ids;
}

}  // namespace kgo::sweep
