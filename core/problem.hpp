#pragma once
// The problem a workspace's kernels are judged against, fixed when its baseline is accepted: the reference
// kgo.json names, the files stored with it (the problem.py kgo init stores for seed/fmh66 kernels, a
// SOL-ExecBench definition's workload.jsonl) and the entries of kgo.json that choose them (reference, problem,
// kernel_file, contract). A verdict counts only against that problem:
// check, bench, baseline and propose refuse a problem file that differs from HEAD or from the baseline's,
// accept refuses to decide while it does, and audit and `iterate verify` name every commit that changed it.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kgo::core {

// The baseline: the lowest-numbered record that HEAD's committed memory/ holds as accepted, and the
// iteration commit it names (which must be on HEAD's history).
struct Baseline {
  int version = 0;
  std::string commit;   // full id
};

// nullopt when the workspace has no git repository, no HEAD or no accepted record yet.
std::optional<Baseline> find_baseline(const std::filesystem::path& workspace);

// One problem file that a commit (or the work tree) changed.
struct ProblemChange {
  std::string file;     // "ref.py", "workload.jsonl", "kgo.json (reference, kernel_file, contract)"
  std::string commit;   // full id; "" for the work tree
  std::string subject;  // the commit's first line
  std::string describe(const std::optional<Baseline>& baseline) const;  // one line, with the fix
};

// Every commit after the baseline commit, oldest first, that changed a problem file (one entry per
// file and commit). Empty without a baseline. Throws Error(git_error) when git cannot be read.
std::vector<ProblemChange> problem_changes_since_baseline(const std::filesystem::path& workspace);

// Why the problem as it is now (work tree, then HEAD) is not the one the baseline fixed, or nullopt:
// a problem file differs from HEAD (uncommitted), or HEAD's differs from the baseline commit's.
std::optional<std::string> problem_difference(const std::filesystem::path& workspace);

// Throws Error(kernel_missing: the reference as given is unusable) with problem_difference's text.
void verify_problem_unchanged(const std::filesystem::path& workspace);

}  // namespace kgo::core
