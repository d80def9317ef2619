#pragma once
// `kgo init`: builds a workspace in a temporary sibling directory, commits it with libgit2,
// then renames it into place, so no half-made workspace is ever visible.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/workspace.hpp"

namespace kgo::core {

struct InitRequest {
  std::string name;
  fs::path kernel;
  std::string framework = "triton";
  std::string dtype = "fp32";
  std::vector<std::string> shapes;
  std::optional<fs::path> reference;
  std::optional<fs::path> dir;  // parent directory; default $KGO_WORKSPACES, else /tmp
  std::string notes;
  nlohmann::json contract;  // see WorkspaceConfig::contract
  int max_iterations = k_default_max_iterations;
  bool force = false;
};

// What the wiki layer resolved for the platform and the wiki itself.
struct ResolvedPlatform {
  std::string input;       // as typed
  std::string canonical;   // e.g. "H100 SXM"
  std::string arch;        // e.g. "Hopper"
  std::string wiki_path;
  std::string wiki_fingerprint;
  bool wiki_embedded = false;
};

struct InitResult {
  fs::path workspace;
  WorkspaceConfig config;
  std::string commit;
  std::optional<fs::path> previous_moved_to;  // with --force: where the old workspace went
};

// Throws Error with a distinct code for each bad input: bad_name, kernel_missing,
// workspace_exists, not_writable, usage (framework / shape).
void validate_name(const std::string& name);
InitResult init_workspace(const InitRequest& req, const ResolvedPlatform& platform);

// Whether a kernel source's format carries setup() (the seed and fmh66 formats: module-level `def setup(` and
// `def run_kernel(`, no KernelBench `ModelNew` or tritonbench `Operator`); `contract` is kgo.json's contract
// (null: detected; an explicit seed/fmh66 name decides alone). Its inputs are then the problem's.
bool carries_setup(const std::string& kernel_source, const nlohmann::json& contract);

// The workspace's problem file: the baseline kernel whose setup() makes every candidate's inputs.
inline constexpr const char* k_problem_file = "problem.py";

// problem.py's text for a baseline kernel: a comment saying what the file is, then the kernel's bytes.
std::string problem_file_text(const std::string& baseline_source);

// The frameworks `--framework` accepts.
const std::vector<std::string>& known_frameworks();

}  // namespace kgo::core
