#include "sweep/job.hpp"

#include <chrono>
#include <cstdlib>
#include <future>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/process.hpp"
#include "core/workspace.hpp"
#include "sweep/provenance.hpp"

namespace kgo::sweep {

namespace {

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string self_exe() { return fs::read_symlink("/proc/self/exe").string(); }

std::string tail(const std::string& s, size_t n = 2000) { return s.size() > n ? s.substr(s.size() - n) : s; }

// The job's private workspace: a fresh copy of the listed one, or one `kgo init` makes.
fs::path prepare_workspace(const Job& job, const fs::path& jdir, const core::ProcessOptions& po) {
  if (job.workspace) {
    fs::path ws = jdir / "ws";
    fs::copy(*job.workspace, ws, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    std::error_code ec;
    fs::remove(ws / ".kgo" / "lock", ec);  // a lock file copied from a busy workspace is not ours
    return ws;
  }
  std::vector<std::string> argv = {self_exe(), "init", job.name, job.kernel->string(), "--platform", job.platform,
                                   "--dir", jdir.string(), "--json"};
  if (job.reference) argv.insert(argv.end(), {"--reference", job.reference->string()});
  if (!job.shape.empty()) argv.insert(argv.end(), {"--shape", job.shape});
  if (!job.dtype.empty()) argv.insert(argv.end(), {"--dtype", job.dtype});
  if (!job.framework.empty()) argv.insert(argv.end(), {"--framework", job.framework});
  auto p = core::run_process(argv, po);
  if (!p.ok()) {
    throw Error(fmt::format("kgo init for job {} failed (exit {}): {}", job.id, p.exit_code, tail(p.err, 500)));
  }
  return jdir / ("kernel_opt_" + job.name);
}

std::string status_of(const core::ProcessResult& p) {
  if (p.timed_out) return "timeout";
  if (p.signaled) return "error";
  if (p.exit_code == 0) return "ok";
  if (p.exit_code == 1 || p.exit_code == 2) return "fail";
  return "error";
}

// Verdict and headline timing from the step's --json output (a summary or --detail), when it has them.
void summarize(const nlohmann::json& out, nlohmann::json& r) {
  r["verdict"] = out.is_object() && out.contains("verdict") ? out["verdict"] : nlohmann::json();
  auto num = [&](const char* k) {
    for (const char* at : {"", "/harness", "/bench", "/bench/harness"}) {
      auto p = nlohmann::json::json_pointer(std::string(at) + "/" + k);
      if (out.is_object() && out.contains(p) && out[p].is_number()) return out[p];
    }
    return nlohmann::json();
  };
  r["median_us"] = num("final_median_us");
  r["speedup_vs_eager"] = num("geomean_speedup_vs_eager");
}

// The UUID of the GPU the step's harness computed on, from its environment block (null when it did not say).
nlohmann::json device_uuid(const nlohmann::json& out) {
  for (const char* path : {"/gpu_uuid", "/harness/environment/gpu_uuid", "/bench/gpu_uuid",
                           "/bench/harness/environment/gpu_uuid", "/check/gpu_uuid"}) {
    auto p = nlohmann::json::json_pointer(path);
    if (out.is_object() && out.contains(p) && out[p].is_string()) return out[p];
  }
  return nullptr;
}

// A job that computed on another GPU than the one it was pinned to has no trustworthy provenance.
std::string pin_violation(const nlohmann::json& prov) {
  const nlohmann::json& gpu = prov["gpu"];
  const nlohmann::json& seen = prov["device_uuid"];
  if (!gpu.is_object() || !gpu.contains("uuid") || !gpu["uuid"].is_string() || !seen.is_string()) return "";
  std::string pinned = gpu["uuid"].get<std::string>();
  if (pinned.empty() || pinned == seen.get<std::string>()) return "";
  return fmt::format("the job was pinned to GPU {} (CUDA_VISIBLE_DEVICES={}) but its harness ran on {}; "
                     "check that nothing in the job's environment overrides CUDA_VISIBLE_DEVICES",
                     pinned, prov["cuda_visible_devices"].is_string() ? prov["cuda_visible_devices"].get<std::string>() : "",
                     seen.get<std::string>());
}

}  // namespace

std::vector<std::string> step_argv(const Job& job, const fs::path& ws) {
  std::vector<std::string> argv = {self_exe(), job.step, "--workspace", ws.string(), "--json"};
  if (!job.shape.empty()) {
    if (job.step == "bench") argv.insert(argv.end(), {"--size", job.shape});
    if (job.step == "baseline") argv.insert(argv.end(), {"--shape", job.shape, "--size", job.shape});
    if (job.step == "check" || job.step == "profile" || job.step == "propose") argv.insert(argv.end(), {"--shape", job.shape});
  }
  bool harness_step = job.step == "check" || job.step == "bench" || job.step == "baseline" || job.step == "propose";
  if (!job.dtype.empty() && harness_step) argv.insert(argv.end(), {"--dtype", job.dtype});
  if (harness_step) argv.insert(argv.end(), {"--device", job.device});
  argv.insert(argv.end(), job.args.begin(), job.args.end());
  return argv;
}

nlohmann::json run_job(const Sweep& s, int id) {
  if (id < 0 || id >= static_cast<int>(s.jobs.size())) {
    throw Error(fmt::format("sweep '{}' has no job {} (jobs 0-{})", s.name, id, s.jobs.size() - 1), ExitCode::usage);
  }
  const Job& job = s.jobs[static_cast<size_t>(id)];
  fs::path jdir = s.job_dir(id);
  nlohmann::json r = {{"schema_version", 1}, {"sweep", s.name}, {"job", to_json(job)},
                      {"started_at", core::utc_now_iso()},
                      {"started_unix", unix_now()}};
  auto t0 = std::chrono::steady_clock::now();
  // The pinned GPU's provenance (an nvidia-smi query: 30-100 ms, a tenth of a warm job on an H200) is read while
  // the job runs rather than after it.
  auto gpu = std::async(std::launch::async,
                        [&job] { return job.wants_gpu() ? this_process_gpu() : nlohmann::json(); });
  core::ProcessOptions po;
  po.timeout = std::chrono::milliseconds(static_cast<long long>(s.timeout_s * 1000));
  // GPU jobs share their GPU's warm judge where the backend set one up (a cell is never shared: each job's
  // workspace is an identity of its own); other jobs run in processes of their own, side by side.
  if (!std::getenv("KGO_HARNESS_DAEMON")) po.env["KGO_HARNESS_DAEMON"] = "0";
  core::ProcessResult p;
  std::vector<std::string> argv;
  fs::path ws;
  int attempt = 0;
  std::string status = "error";
  std::string error;
  for (; attempt <= s.retries; ++attempt) {
    std::error_code ec;
    fs::remove_all(jdir, ec);
    fs::create_directories(jdir);
    try {
      ws = prepare_workspace(job, jdir, po);
      argv = step_argv(job, ws);
      p = core::run_process(argv, po);
      status = status_of(p);
      error.clear();
    } catch (const Error& e) {
      status = "error";
      error = e.what();
    }
    if (status == "ok" || status == "fail") break;
  }
  nlohmann::json out = nlohmann::json::parse(p.out, nullptr, false);
  if (!out.is_discarded() && !p.out.empty()) core::write_file_atomic(jdir / "output.json", p.out);
  summarize(out.is_discarded() ? nlohmann::json() : out, r);
  if (!argv.empty()) argv[0] = "kgo";
  r["command"] = argv;
  r["status"] = status;
  r["exit_code"] = p.timed_out || p.signaled ? nlohmann::json() : nlohmann::json(p.exit_code);
  r["attempts"] = std::min(attempt + 1, s.retries + 1);
  if (error.empty() && status != "ok" && status != "fail") {
    // Under --json kgo prints its error once, as JSON on stdout ({"error", "exit_code"}); stderr may hold none.
    error = !out.is_discarded() && out.is_object() && out.contains("error") && out["error"].is_string()
                ? tail(out["error"].get<std::string>(), 1000)
                : tail(p.err, 1000);
  }
  r["error"] = error;
  r["finished_at"] = core::utc_now_iso();
  r["finished_unix"] = unix_now();
  r["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r["step_seconds"] = p.seconds;
  r["provenance"] = provenance(ws, gpu.get());
  r["provenance"]["device_uuid"] = out.is_discarded() ? nlohmann::json() : device_uuid(out);
  if (std::string why = pin_violation(r["provenance"]); !why.empty()) {
    r["status"] = "error";
    r["error"] = why;
  }
  fs::create_directories(s.results_dir());
  core::write_file_atomic(s.result_file(id), r.dump(1) + "\n");
  return r;
}

int job_for_task(const Sweep& s, int submission, int task_index) {
  fs::path f = s.dir / "slurm" / fmt::format("submit-{}.json", submission);
  auto text = core::try_read_file(f);
  nlohmann::json ids = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
  if (!ids.is_array() || task_index < 0 || task_index >= static_cast<int>(ids.size())) {
    throw Error(fmt::format("array task {} of submission {} has no job in {}", task_index, submission, f.string()),
                ExitCode::usage);
  }
  return ids[static_cast<size_t>(task_index)].get<int>();
}

}  // namespace kgo::sweep
