#pragma once
// A kgo workspace: `<dir>/kernel_opt_<name>/` with kgo.json, README.md, memory/, plans/,
// profiles/ and a git repository. This header holds its configuration and the init operation.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kgo::core {

namespace fs = std::filesystem;

// Iterations (v1, v2, ...) decided before `kgo next` ends a run whose Stop Conditions are not met (the seed's
// "max iterations", fixed once the run starts); kgo init --max-iterations sets it.
inline constexpr int k_default_max_iterations = 10;

struct WorkspaceConfig {
  std::string name;
  std::string platform;             // canonical product name as the wiki states it
  std::string platform_input;       // what the user typed (--platform)
  std::string arch;                 // Hopper, Ampere, Blackwell, CDNA3, ...
  std::string framework = "triton";
  std::string dtype = "fp32";
  std::vector<std::vector<long long>> shapes;
  std::string kernel_file;          // kernel.py or kernel.cu
  std::optional<std::string> reference;  // file name inside the workspace
  // Formats whose kernel file carries setup() (seed, fmh66): the baseline kernel, stored at init as the
  // problem whose setup() makes every candidate's inputs (problem.py); guarded like the reference.
  std::optional<std::string> problem;
  std::string wiki_path;
  std::string wiki_fingerprint;
  bool wiki_embedded = false;
  std::string notes;
  int max_iterations = k_default_max_iterations;
  // How the harness reads the kernel files when it is not the default: {"name", "dims", "inputs",
  // "outputs", "sizes"} (kgo init --contract/--dim/--inputs/--outputs/--size); null: detected.
  nlohmann::json contract;
  std::string kgo_version;
  std::string created_at;           // ISO 8601 UTC
};

void to_json(nlohmann::json& j, const WorkspaceConfig& c);
void from_json(const nlohmann::json& j, WorkspaceConfig& c);

// Parses "4096x4096" (also "4096"); throws Error(usage) naming the bad text.
std::vector<long long> parse_shape(const std::string& text);
std::string shape_to_string(const std::vector<long long>& shape);

// Loads `<ws>/kgo.json`; throws Error(no_workspace) when absent or malformed.
WorkspaceConfig load_config(const fs::path& workspace);
void save_config(const fs::path& workspace, const WorkspaceConfig& config);

// The workspace holding `start` (searching upwards for kgo.json), or `explicit_dir` when given.
// Throws Error(no_workspace) with a hint when none is found.
fs::path find_workspace(const std::optional<fs::path>& explicit_dir, const fs::path& start = fs::current_path());

// UTC time as "2026-11-20T22:36:48Z".
std::string utc_now_iso();

}  // namespace kgo::core
