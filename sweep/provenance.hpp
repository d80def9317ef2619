#pragma once
// Where and with what a sweep job ran: host, kgo version and commit, the kernel and reference hashes,
// and the GPU this process is pinned to (name, UUID, driver, clocks, throttle reasons) from nvidia-smi.
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace kgo::sweep {

// The commit kgo was built from ("unknown" outside a git checkout; "+dirty" for local changes).
std::string kgo_commit();

// The GPU `cuda_visible_devices` names (an index or a GPU-UUID; its first entry), looked up in
// nvidia-smi's list; with it unset and one GPU present, that GPU. Null when there is none.
nlohmann::json pinned_gpu(const std::optional<std::string>& cuda_visible_devices);

// pinned_gpu of this process's CUDA_VISIBLE_DEVICES.
nlohmann::json this_process_gpu();

// Host, kgo version/commit, CUDA_VISIBLE_DEVICES, Slurm ids, hashes of the workspace's kernel and
// reference, and `gpu` (this_process_gpu's answer; null for a CPU job).
nlohmann::json provenance(const std::filesystem::path& workspace, nlohmann::json gpu);

}  // namespace kgo::sweep
