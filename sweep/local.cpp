// The local backend: one worker thread per GPU (each job pinned with CUDA_VISIBLE_DEVICES, so jobs on
// one GPU run one after another) and a pool of CPU workers for CPU-only jobs (CUDA_VISIBLE_DEVICES="").
// Every worker runs its jobs through a warm judge of its own (harness/warm_judge.hpp).
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <deque>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/process.hpp"
#include "core/gpu_info.hpp"
#include "harness/warm_judge.hpp"
#include "sweep/backend.hpp"

namespace kgo::sweep {

namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_stop_signal(int sig) {
  g_stop = true;
  std::signal(sig, SIG_DFL);  // a second signal ends the runner at once
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string x; std::getline(ss, x, ',');) {
    if (!x.empty()) out.push_back(x);
  }
  return out;
}

// The GPUs this process may use: $CUDA_VISIBLE_DEVICES's list, else every GPU the driver shows.
std::vector<std::string> visible_gpus() {
  if (!core::nvidia_gpu_visible()) return {};
  if (const char* cvd = std::getenv("CUDA_VISIBLE_DEVICES")) return split(cvd);
  std::vector<std::string> out;
  for (const auto& g : core::query_nvidia_smi().gpus) out.push_back(std::to_string(g.index));
  return out;
}

struct Pool {
  const Sweep& s;
  const RunOptions& o;
  std::mutex m;
  std::deque<int> gpu_queue, cpu_queue;
  int total = 0, done = 0, running = 0;
  std::map<std::string, int> counts;

  void report(const Job& job, const std::string& status, const std::string& worker, double secs) {
    if (!o.progress) return;
    std::string line = fmt::format("[{}/{}] {} {} on {} ({:.1f} s); {} running", done, total, status, job.label(),
                                   worker, secs, running);
    std::cerr << (isatty(2) ? "\r\033[K" + line : line + "\n") << std::flush;
  }

  void work(std::deque<int>& q, const std::string& worker, const std::string& cvd) {
    std::string self = fs::read_symlink("/proc/self/exe").string();
    harness::WarmScope warm;   // this worker's own warm judge, shared by its jobs, stopped when it ends
    for (;;) {
      int id;
      {
        std::lock_guard<std::mutex> lock(m);
        if (q.empty() || g_stop) return;
        id = q.front();
        q.pop_front();
        ++running;
      }
      core::ProcessOptions po;
      for (const auto& [k, v] : warm.env()) po.env[k] = v;
      po.env["CUDA_VISIBLE_DEVICES"] = cvd;
      po.timeout = std::chrono::milliseconds(static_cast<long long>((s.timeout_s * (s.retries + 1) + 120) * 1000));
      auto p = core::run_process({self, "sweep", "exec", s.dir.string(), "--job", std::to_string(id)}, po);
      std::string status = "no result";
      if (auto text = core::try_read_file(s.result_file(id))) {
        auto r = nlohmann::json::parse(*text, nullptr, false);
        if (!r.is_discarded()) status = r.value("status", "no result");
      }
      std::lock_guard<std::mutex> lock(m);
      --running;
      ++done;
      ++counts[status];
      report(s.jobs[static_cast<size_t>(id)], status, worker, p.seconds);
    }
  }
};

fs::path pid_file(const Sweep& s) { return s.dir / "local.pid"; }

}  // namespace

RunSummary run_local(const Sweep& s, const RunOptions& o) {
  auto t0 = std::chrono::steady_clock::now();
  RunSummary r;
  r.backend = "local";
  r.jobs = static_cast<int>(s.jobs.size());
  Pool pool{s, o};
  std::vector<std::string> gpus = o.gpus ? *o.gpus : visible_gpus();
  for (int id : jobs_without_result(s)) {
    bool gpu = !gpus.empty() && s.jobs[static_cast<size_t>(id)].wants_gpu();
    (gpu ? pool.gpu_queue : pool.cpu_queue).push_back(id);
    r.submitted.push_back(id);
  }
  r.already_done = r.jobs - static_cast<int>(r.submitted.size());
  pool.total = static_cast<int>(r.submitted.size());
  int cpu_workers = o.cpu_jobs > 0 ? o.cpu_jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  cpu_workers = std::min(cpu_workers, static_cast<int>(pool.cpu_queue.size()));
  g_stop = false;
  core::write_file_atomic(pid_file(s), std::to_string(::getpid()) + "\n");
  auto old_term = std::signal(SIGTERM, on_stop_signal);
  auto old_int = std::signal(SIGINT, on_stop_signal);
  std::vector<std::thread> threads;
  if (!pool.gpu_queue.empty()) {
    for (const auto& g : gpus) {
      r.workers.push_back("gpu:" + g);
      threads.emplace_back([&pool, g] { pool.work(pool.gpu_queue, "gpu:" + g, g); });
    }
  }
  for (int i = 0; i < cpu_workers; ++i) {
    r.workers.push_back("cpu");
    threads.emplace_back([&pool] { pool.work(pool.cpu_queue, "cpu", ""); });
  }
  for (auto& t : threads) t.join();
  std::signal(SIGTERM, old_term);
  std::signal(SIGINT, old_int);
  std::error_code ec;
  fs::remove(pid_file(s), ec);
  if (o.progress && isatty(2) && pool.total > 0) std::cerr << "\n";
  if (g_stop) {
    // Only what ran is reported as submitted; the rest stays without a result for the next run.
    r.submitted.resize(static_cast<size_t>(pool.done));
  }
  r.counts = result_counts(s);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

bool local_cancel(const Sweep& s) {
  auto text = core::try_read_file(pid_file(s));
  if (!text) return false;
  int pid = std::atoi(text->c_str());
  // The pid must still be a kgo sweep runner: a stale file's pid may belong to anything now.
  auto cmdline = core::try_read_file(fmt::format("/proc/{}/cmdline", pid));
  if (pid <= 0 || !cmdline || cmdline->find("sweep") == std::string::npos) return false;
  return ::kill(pid, SIGTERM) == 0;
}

nlohmann::json result_counts(const Sweep& s) {
  nlohmann::json c = {{"ok", 0}, {"fail", 0}, {"timeout", 0}, {"error", 0}, {"missing", 0}};
  for (const auto& j : s.jobs) {
    auto text = core::try_read_file(s.result_file(j.id));
    if (!text) {
      c["missing"] = c["missing"].get<int>() + 1;
      continue;
    }
    auto v = nlohmann::json::parse(*text, nullptr, false);
    std::string st = v.is_discarded() ? "error" : v.value("status", "error");
    c[st] = c.value(st, 0) + 1;
  }
  return c;
}

nlohmann::json to_json(const RunSummary& r) {
  return {{"backend", r.backend},         {"jobs", r.jobs},       {"already_done", r.already_done},
          {"queued_elsewhere", r.queued_elsewhere}, {"submitted", r.submitted}, {"workers", r.workers},
          {"slurm_job_id", r.slurm_job_id}, {"seconds", r.seconds}, {"counts", r.counts}};
}

}  // namespace kgo::sweep
