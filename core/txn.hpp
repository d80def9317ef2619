#pragma once
// Crash-safe workspace transactions. The files and commits an operation intends are staged under
// `.kgo/txn/` and described by `.kgo/journal.json` (the commit point); applying builds the git
// objects, moves the branch once (compare-and-swap), then writes the work tree and the index.
// Applying is deterministic and idempotent, so the next kgo command rolls an interrupted one forward.
// KGO_FAULT_AT=<n> makes the process SIGKILL itself at its n-th checkpoint (fault-injection tests);
// KGO_FAULT_TRACE=1 prints every checkpoint to stderr.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/lock.hpp"

namespace kgo::core {

namespace fs = std::filesystem;

// A fault-injection point (see above); free when KGO_FAULT_AT is unset.
void fault_checkpoint(const char* label);
// Overrides KGO_FAULT_AT for this process and restarts the count (in-process tests fork first).
void set_fault_injection(long at);

// Like write_file_atomic, with fault checkpoints between its steps.
void write_file_atomic_checked(const fs::path& path, const std::string& content);

struct TxnFile {
  std::string path;                    // work-tree relative, '/'-separated
  std::optional<std::string> content;  // nullopt: delete the file
  bool write_worktree = true;          // false: commit only (the work-tree file already holds it)
};

struct TxnCommit {
  std::string message;
  std::vector<TxnFile> files;
  // JSON files (from an earlier commit of this transaction) whose "git_commit" field is set to
  // the id of the commit just before this one: the record names its own iteration commit.
  std::vector<std::string> record_commit_of_previous;
};

struct TxnResult {
  std::vector<std::string> commits;  // ids, in order
  std::string outcome;               // "completed", or why the transaction was abandoned
};

// Runs `commits` on the workspace's current branch. The caller holds the workspace lock.
// Throws Error(git_error) when HEAD is detached or unborn.
TxnResult run_transaction(const fs::path& workspace, const std::string& op,
                          const std::vector<TxnCommit>& commits);

// Writes whole files into the work tree as one crash-safe step, journaled like a transaction but
// with no commit (records and plans stay uncommitted until their decision): after a SIGKILL the
// next kgo command finds all of them written or none. Takes the workspace lock (re-entrant).
void write_files(const fs::path& workspace, const std::string& op, const std::vector<TxnFile>& files);

struct Recovery {
  std::string op;       // the interrupted operation, e.g. "accept v3"
  TxnResult result;
};

// Finishes (or, when the branch moved since, abandons) an interrupted transaction and removes
// the debris a killed kgo leaves (stale git lock files, temporary files). Caller holds the lock.
std::optional<Recovery> recover_workspace(const fs::path& workspace);

// True when an interrupted transaction is waiting in `<ws>/.kgo/journal.json`.
bool transaction_pending(const fs::path& workspace);

// The workspace lock plus recovery of an interrupted transaction. Re-entrant within one process
// (nested guards on the same workspace share the first one's lock), so library functions that
// mutate a workspace take one themselves. Do not hold a bare WorkspaceLock around them.
class LockedWorkspace {
 public:
  explicit LockedWorkspace(const fs::path& workspace);
  ~LockedWorkspace();
  LockedWorkspace(const LockedWorkspace&) = delete;
  LockedWorkspace& operator=(const LockedWorkspace&) = delete;
  const std::optional<Recovery>& recovered() const { return m_recovered; }

 private:
  fs::path m_workspace;
  std::optional<WorkspaceLock> m_lock;
  std::optional<Recovery> m_recovered;
};

// For read-only commands: when a transaction is pending, takes the lock and finishes it.
std::optional<Recovery> recover_if_interrupted(const fs::path& workspace);

}  // namespace kgo::core
