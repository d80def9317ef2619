#include "specs/history.hpp"

namespace kgo::specs {

namespace {

struct WalkState {
  std::vector<TreeFile>* out;
};

int collect(const char* root, const git_tree_entry* entry, void* payload) {
  if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB) return 0;
  auto* state = static_cast<WalkState*>(payload);
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, git_tree_entry_id(entry));
  state->out->push_back(TreeFile{std::string(root) + git_tree_entry_name(entry), hex});
  return 0;
}

}  // namespace

HistoryReader::HistoryReader(const std::filesystem::path& workspace) {
  core::git_global_init();
  git_repository* raw = nullptr;
  core::git_check(git_repository_open_ext(&raw, workspace.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr),
                  "opening git repository " + workspace.string());
  m_repo.reset(raw);
}

std::vector<TreeFile> HistoryReader::files_at(const std::string& commit_id) const {
  git_oid oid;
  core::git_check(git_oid_fromstr(&oid, commit_id.c_str()), "reading commit id " + commit_id);
  git_commit* raw_commit = nullptr;
  core::git_check(git_commit_lookup(&raw_commit, m_repo.get(), &oid), "looking up commit " + commit_id);
  core::GitCommitPtr commit(raw_commit);
  git_tree* raw_tree = nullptr;
  core::git_check(git_commit_tree(&raw_tree, commit.get()), "reading tree of " + commit_id);
  core::GitTreePtr tree(raw_tree);
  std::vector<TreeFile> out;
  WalkState state{&out};
  core::git_check(git_tree_walk(tree.get(), GIT_TREEWALK_PRE, collect, &state), "walking tree of " + commit_id);
  return out;
}

std::string HistoryReader::read_blob(const std::string& blob_id) const {
  git_oid oid;
  core::git_check(git_oid_fromstr(&oid, blob_id.c_str()), "reading blob id " + blob_id);
  git_blob* raw = nullptr;
  core::git_check(git_blob_lookup(&raw, m_repo.get(), &oid), "reading blob " + blob_id);
  core::GitBlobPtr blob(raw);
  return std::string(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                     static_cast<size_t>(git_blob_rawsize(blob.get())));
}

}  // namespace kgo::specs
