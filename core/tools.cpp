#include "core/tools.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "core/process.hpp"

namespace kgo::core {

namespace fs = std::filesystem;

namespace {

// Subfolders of `parent` whose names start with `prefix`, newest (highest name) first.
std::vector<fs::path> subdirs(const fs::path& parent, const std::string& prefix) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (auto it = fs::directory_iterator(parent, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (it->path().filename().string().rfind(prefix, 0) == 0) out.push_back(it->path());
  }
  std::sort(out.rbegin(), out.rend());
  return out;
}

}  // namespace

std::vector<fs::path> tool_dirs(const std::vector<fs::path>& extra_dirs) {
  std::vector<fs::path> dirs;
  for (const char* var : {"CUDA_PATH", "CUDA_HOME", "CUDA_ROOT"}) {
    if (const char* v = std::getenv(var); v && *v) dirs.push_back(fs::path(v) / "bin");
  }
  dirs.push_back("/usr/local/cuda/bin");
  dirs.push_back("/opt/cuda/bin");
  for (const auto& d : subdirs("/opt/nvidia/nsight-compute", "")) dirs.push_back(d);
  for (const auto& d : subdirs("/opt/nvidia", "nsight-compute")) dirs.push_back(d);
  for (const auto& d : subdirs("/usr/local/cuda", "nsight-compute")) dirs.push_back(d);
  dirs.insert(dirs.end(), extra_dirs.begin(), extra_dirs.end());
  return dirs;
}

std::string tool_search_text() {
  return "PATH, $CUDA_PATH/bin, $CUDA_HOME/bin, $CUDA_ROOT/bin, /usr/local/cuda/bin, /opt/cuda/bin and the "
         "Nsight Compute install dirs (/opt/nvidia/nsight-compute*, /usr/local/cuda/nsight-compute*)";
}

std::optional<fs::path> find_tool(const std::string& name, const std::vector<fs::path>& extra_dirs) {
  if (auto p = find_in_path(name)) return p;
  std::error_code ec;
  for (const auto& d : tool_dirs(extra_dirs)) {
    fs::path p = d / name;
    if (fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0) return p;
  }
  return std::nullopt;
}

}  // namespace kgo::core
