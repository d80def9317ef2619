#pragma once
// The one place kgo looks for the CUDA toolkit's programs (nvcc, ncu, cuobjdump, nvdisasm, ptxas),
// so that every command finds the same file.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kgo::core {

// The directories searched after PATH, in order: $CUDA_PATH, $CUDA_HOME, $CUDA_ROOT (each /bin),
// /usr/local/cuda/bin, /opt/cuda/bin, Nsight Compute installs (/opt/nvidia/nsight-compute/<newest version first>,
// /opt/nvidia/nsight-compute*, /usr/local/cuda/nsight-compute*), then `extra_dirs`.
std::vector<std::filesystem::path> tool_dirs(const std::vector<std::filesystem::path>& extra_dirs = {});

// Those places in words, for the error message of a command that could not find a tool.
std::string tool_search_text();

// The first executable `name` in PATH, then in tool_dirs(extra_dirs); nullopt when none is.
std::optional<std::filesystem::path> find_tool(const std::string& name,
                                               const std::vector<std::filesystem::path>& extra_dirs = {});

}  // namespace kgo::core
