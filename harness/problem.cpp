#include "harness/problem.hpp"

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/git.hpp"
#include "core/init.hpp"

namespace kgo::harness {

namespace fs = std::filesystem;

namespace {

// The kernel as the workspace's first (init) commit holds it: the baseline, whatever the candidate is now.
std::optional<std::string> init_commit_kernel(const fs::path& ws, const std::string& kernel_file) {
  std::error_code ec;
  if (!fs::exists(ws / ".git", ec)) return std::nullopt;
  core::GitRepo repo = core::GitRepo::open(ws);
  std::vector<core::CommitInfo> commits = repo.log();
  if (commits.empty()) return std::nullopt;
  return repo.read_at(commits.back().id, kernel_file);
}

}  // namespace

std::optional<fs::path> workspace_problem(const fs::path& ws, const core::WorkspaceConfig& cfg) {
  std::error_code ec;
  if (cfg.problem) {
    fs::path p = ws / *cfg.problem;
    if (!fs::is_regular_file(p, ec)) {
      throw Error("the workspace's problem file " + p.string() + " is missing; it defines the inputs every "
                  "candidate is judged on: restore it (git checkout -- " + *cfg.problem + ")",
                  ExitCode::kernel_missing);
    }
    return p;
  }
  if (fs::path(cfg.kernel_file).extension() != ".py") return std::nullopt;
  std::optional<std::string> baseline = init_commit_kernel(ws, cfg.kernel_file);
  if (!baseline || !core::carries_setup(*baseline, cfg.contract)) return std::nullopt;
  // Derived from git each time and never committed: the same bytes on every run, so stamps stay valid.
  fs::path p = ws / ".kgo" / "problem-baseline.py";
  std::string text = core::problem_file_text(*baseline);
  if (core::try_read_file(p) != text) {
    fs::create_directories(p.parent_path(), ec);
    core::write_file_atomic(p, text);
  }
  return p;
}

}  // namespace kgo::harness
