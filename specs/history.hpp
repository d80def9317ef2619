#pragma once
// Reads a workspace's committed files for `kgo audit --history`: the files of one commit's tree
// (path and blob id) and blob contents, through one open libgit2 repository.
#include <filesystem>
#include <string>
#include <vector>

#include "core/git.hpp"

namespace kgo::specs {

struct TreeFile {
  std::string path;     // repository-relative, '/' separated
  std::string blob_id;  // hex object id (same content => same id)
};

class HistoryReader {
 public:
  // Opens the repository whose work tree is `workspace`; throws Error(git_error).
  explicit HistoryReader(const std::filesystem::path& workspace);
  // Every blob in the tree of commit `commit_id`.
  std::vector<TreeFile> files_at(const std::string& commit_id) const;
  // The content of a blob.
  std::string read_blob(const std::string& blob_id) const;

 private:
  core::GitRepoPtr m_repo;
};

}  // namespace kgo::specs
