#pragma once
// Internals of core/txn: the journal of a transaction and the code that applies it to git and the
// work tree. Only core/txn*.cpp include this.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/txn.hpp"

namespace kgo::core {

struct JournalFile {
  std::string path;
  std::optional<std::string> staged;   // name under .kgo/txn/, nullopt for a deletion
  std::string sha256;                  // of the staged content
  bool write_worktree = true;
  std::optional<std::string> content;  // the staged content, loaded
};

struct JournalCommit {
  std::string message;
  std::vector<JournalFile> files;
  std::vector<std::string> record_commit_of_previous;
};

struct Journal {
  std::string op;
  std::string base;     // branch tip when the operation began
  std::string branch;   // "refs/heads/main"
  std::string sig_name, sig_email;
  long long sig_time = 0;
  unsigned long long owner_dev = 0, owner_ino = 0;  // identity of the .kgo folder it was written in
  std::vector<JournalCommit> commits;
  std::vector<JournalFile> worktree;  // a journal without commits: files written to the work tree only
};

inline fs::path journal_path(const fs::path& ws) { return ws / ".kgo" / "journal.json"; }
inline fs::path staging_dir(const fs::path& ws) { return ws / ".kgo" / "txn"; }

// Why `rel` may not be a transaction target (not a plain relative path, a place kgo's operations
// never write, or a link/special file on the way), or nullopt when it may.
std::optional<std::string> journal_target_problem(const fs::path& workspace, const std::string& rel);

// Reads the current branch, its tip and the commit signature (name, email, time) to use.
Journal begin_journal(const fs::path& workspace, const std::string& op);

// Builds the commits (deterministically: same journal, same ids), moves the branch from `base`
// to the last one, writes the work tree and the index, then deletes the journal. A journal
// without commits writes its `worktree` files and touches no git state.
TxnResult apply_journal(const fs::path& workspace, const Journal& journal);

}  // namespace kgo::core
