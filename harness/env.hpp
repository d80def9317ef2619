#pragma once
// `kgo env`: is this machine ready to check, time and profile kernels? Probes the Python
// interpreter (torch, triton, CUDA runtime), nvidia-smi (GPU, driver, clocks), nvcc and ncu,
// and renders env_check.md. Missing required items are named; probing never throws.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/gpu_info.hpp"

namespace kgo::harness {

struct EnvItem {
  std::string name;      // "torch", "CUDA GPU", "triton", "nvcc", "ncu", "nvidia-smi", "Python"
  bool ok = false;
  std::string detail;    // version / path, or why it is missing and how to fix it
};

struct ToolInfo {
  std::string path;      // "" when not found
  std::string version;   // the version line of `--version`
};

struct EnvReport {
  std::string checked_at;
  std::string python;          // interpreter command and its source
  std::string python_path;
  std::string python_version;
  std::string torch_version, torch_cuda, triton_version;
  bool cuda_available = false;
  int device_count = 0;
  std::string torch_device_name;   // torch's name of GPU `gpu`
  int gpu = 0;                     // the GPU index asked for
  ToolInfo nvcc, ncu;
  core::SmiReport smi;
  std::vector<EnvItem> items;
  std::vector<std::string> missing;
  std::vector<std::string> warnings;
  bool ready() const { return missing.empty(); }
};

struct EnvOptions {
  std::optional<std::string> python;   // --python
  int gpu = 0;                         // --gpu
};

EnvReport check_env(const EnvOptions& opts);

// `tool` where core::find_tool finds it (the same file for every command), with its version line.
ToolInfo find_cuda_tool(const std::string& tool);

std::string render_env_markdown(const EnvReport& r);
nlohmann::json to_json(const EnvReport& r);

}  // namespace kgo::harness
