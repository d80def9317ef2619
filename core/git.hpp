#pragma once
// RAII wrappers over libgit2 and the few repository operations kgo needs.
// Every failure throws Error(ExitCode::git_error) naming the operation and libgit2's message.
#include <git2.h>
#include <git2/sys/mempack.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kgo::core {

template <auto Fn>
struct GitFree {
  template <class T>
  void operator()(T* p) const noexcept {
    Fn(p);
  }
};

using GitRepoPtr = std::unique_ptr<git_repository, GitFree<git_repository_free>>;
using GitIndexPtr = std::unique_ptr<git_index, GitFree<git_index_free>>;
using GitTreePtr = std::unique_ptr<git_tree, GitFree<git_tree_free>>;
using GitCommitPtr = std::unique_ptr<git_commit, GitFree<git_commit_free>>;
using GitSignaturePtr = std::unique_ptr<git_signature, GitFree<git_signature_free>>;
using GitRevwalkPtr = std::unique_ptr<git_revwalk, GitFree<git_revwalk_free>>;
using GitTreeEntryPtr = std::unique_ptr<git_tree_entry, GitFree<git_tree_entry_free>>;
using GitBlobPtr = std::unique_ptr<git_blob, GitFree<git_blob_free>>;
using GitConfigPtr = std::unique_ptr<git_config, GitFree<git_config_free>>;
using GitObjectPtr = std::unique_ptr<git_object, GitFree<git_object_free>>;

// Throws Error("<what>: <libgit2 message>") when `rc` < 0.
void git_check(int rc, std::string_view what);

// Initialises libgit2 for the process lifetime (idempotent, thread-safe).
void git_global_init();

struct CommitInfo {
  std::string id;        // full hex id
  std::string summary;   // first line of the message
  std::string message;
  std::string author;
  long long time = 0;    // seconds since epoch
};

class GitRepo {
 public:
  // Creates a new repository at `dir` (work tree), branch main.
  static GitRepo init(const std::filesystem::path& dir);
  // Opens the repository whose work tree is `dir`; throws when there is none.
  static GitRepo open(const std::filesystem::path& dir);

  const std::filesystem::path& workdir() const { return m_dir; }

  // Stages the given work-tree-relative paths (files that vanished are removed from the index).
  void add(const std::vector<std::string>& paths);
  // Stages everything not ignored (like `git add -A`).
  void add_all();
  // Commits the index on HEAD; returns the new commit id. Author from git config, else kgo's.
  std::string commit(const std::string& message);
  // HEAD's commit id, or nullopt in an empty repository.
  std::optional<std::string> head() const;
  // The repository holding `dir` (it or a parent folder), or nullopt when there is none.
  static std::optional<GitRepo> containing(const std::filesystem::path& dir);
  // Commits reachable from HEAD, newest first (at most `limit`, 0 = all).
  std::vector<CommitInfo> log(size_t limit = 0) const;
  // The content of `path` at commit `rev` (id or "HEAD"), or nullopt when absent there.
  std::optional<std::string> read_at(const std::string& rev, const std::string& path) const;
  // The files directly under folder `dir` at commit `rev`, as (name, blob id); empty when absent.
  std::vector<std::pair<std::string, std::string>> blobs_at(const std::string& rev, const std::string& dir) const;
  // Forces the work-tree files `paths` back to their content at `rev` and stages them.
  void restore_paths(const std::string& rev, const std::vector<std::string>& paths);
  // Resets index and work tree to `rev` (hard reset of tracked files; untracked files stay).
  void reset_hard(const std::string& rev);
  // Work-tree-relative paths that differ from HEAD (modified, new, deleted), not ignored.
  std::vector<std::string> changed_paths() const;

  // From here on, new objects are held in memory until write_held_objects() stores them all as
  // one packfile: two files instead of one per object (kgo init's first commit). Objects still
  // held when the GitRepo dies are lost, so callers write them before anything refers to them
  // from outside the process.
  void hold_objects_in_memory();
  void write_held_objects();

 private:
  GitRepo(GitRepoPtr repo, std::filesystem::path dir) : m_repo(std::move(repo)), m_dir(std::move(dir)) {}
  GitCommitPtr lookup_commit(const std::string& rev) const;

  GitRepoPtr m_repo;
  std::filesystem::path m_dir;
  git_odb_backend* m_mempack = nullptr;  // owned by the repository's object database
};

}  // namespace kgo::core
