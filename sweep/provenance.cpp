#include "sweep/provenance.hpp"

#include <unistd.h>

#include <cstdlib>

#include "core/files.hpp"
#include "core/resources.hpp"
#include "core/workspace.hpp"
#include "core/gpu_info.hpp"

namespace kgo::sweep {

namespace {

std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::optional<std::string>(v) : std::nullopt;
}

nlohmann::json file_hash(const std::filesystem::path& f) {
  std::error_code ec;
  return std::filesystem::is_regular_file(f, ec) ? nlohmann::json(core::sha256_file(f)) : nlohmann::json();
}

}  // namespace

std::string kgo_commit() {
  return
#include "git_commit.inc"
      ;
}

nlohmann::json pinned_gpu(const std::optional<std::string>& cvd) {
  core::SmiReport smi = core::query_nvidia_smi();
  if (!smi.available) return nullptr;
  std::string want = cvd ? cvd->substr(0, cvd->find(',')) : "";
  for (const auto& g : smi.gpus) {
    const std::string& uuid = g.uuid;
    bool match = want.empty() ? smi.gpus.size() == 1
                              : (want == std::to_string(g.index) || (!uuid.empty() && uuid.rfind(want, 0) == 0));
    if (!match) continue;
    nlohmann::json j = core::to_json(g);
    j["uuid"] = uuid;
    j["cuda_version"] = smi.cuda_version;
    return j;
  }
  return nullptr;
}

nlohmann::json this_process_gpu() { return pinned_gpu(env("CUDA_VISIBLE_DEVICES")); }

nlohmann::json provenance(const std::filesystem::path& ws, nlohmann::json gpu) {
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  nlohmann::json kernel = nullptr, reference = nullptr;
  if (std::filesystem::exists(ws / "kgo.json")) {
    core::WorkspaceConfig cfg = core::load_config(ws);
    kernel = file_hash(ws / cfg.kernel_file);
    if (cfg.reference) reference = file_hash(ws / *cfg.reference);
  }
  auto cvd = env("CUDA_VISIBLE_DEVICES");
  auto opt = [](const std::optional<std::string>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  return {{"host", host},
          {"kgo_version", core::kgo_version()},
          {"kgo_commit", kgo_commit()},
          {"kernel_sha256", kernel},
          {"reference_sha256", reference},
          {"cuda_visible_devices", opt(cvd)},
          {"slurm_job_id", opt(env("SLURM_JOB_ID"))},
          {"slurm_array_task", opt(env("SLURM_ARRAY_TASK_ID"))},
          {"gpu", std::move(gpu)}};
}

}  // namespace kgo::sweep
