#include "core/git.hpp"

#include <git2/sys/odb_backend.h>

#include <mutex>

#include "core/error.hpp"

namespace kgo::core {

void git_check(int rc, std::string_view what) {
  if (rc >= 0) {
    return;
  }
  const git_error* e = git_error_last();
  std::string msg = std::string(what) + ": " + (e && e->message ? e->message : "unknown libgit2 error");
  throw Error(msg, ExitCode::git_error);
}

void git_global_init() {
  static std::once_flag once;
  std::call_once(once, [] { git_libgit2_init(); });
}

GitRepo GitRepo::init(const std::filesystem::path& dir) {
  git_global_init();
  git_repository_init_options opts = GIT_REPOSITORY_INIT_OPTIONS_INIT;
  // An empty external template, as `git init --template=`: no sample hook, description or
  // info/exclude files, which kgo's workspaces never use (three fewer files to create).
  opts.flags = GIT_REPOSITORY_INIT_MKPATH | GIT_REPOSITORY_INIT_EXTERNAL_TEMPLATE;
  opts.template_path = "";
  opts.initial_head = "main";
  git_repository* raw = nullptr;
  git_check(git_repository_init_ext(&raw, dir.c_str(), &opts), "git init " + dir.string());
  return GitRepo(GitRepoPtr(raw), dir);
}

GitRepo GitRepo::open(const std::filesystem::path& dir) {
  git_global_init();
  git_repository* raw = nullptr;
  git_check(git_repository_open_ext(&raw, dir.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr),
            "opening git repository " + dir.string());
  return GitRepo(GitRepoPtr(raw), dir);
}

void GitRepo::add(const std::vector<std::string>& paths) {
  git_index* raw = nullptr;
  git_check(git_repository_index(&raw, m_repo.get()), "reading index");
  GitIndexPtr index(raw);
  for (const auto& p : paths) {
    std::error_code ec;
    if (std::filesystem::exists(m_dir / p, ec)) {
      git_check(git_index_add_bypath(index.get(), p.c_str()), "git add " + p);
    } else {
      int rc = git_index_remove_bypath(index.get(), p.c_str());
      git_check(rc, "git rm " + p);
    }
  }
  git_check(git_index_write(index.get()), "writing index");
}

void GitRepo::add_all() {
  git_index* raw = nullptr;
  git_check(git_repository_index(&raw, m_repo.get()), "reading index");
  GitIndexPtr index(raw);
  git_check(git_index_add_all(index.get(), nullptr, GIT_INDEX_ADD_DEFAULT, nullptr, nullptr),
            "git add -A");
  git_check(git_index_update_all(index.get(), nullptr, nullptr, nullptr), "git add -u");
  git_check(git_index_write(index.get()), "writing index");
}

namespace {

GitSignaturePtr make_signature(git_repository* repo) {
  git_signature* sig = nullptr;
  if (git_signature_default(&sig, repo) == 0) {
    return GitSignaturePtr(sig);
  }
  git_check(git_signature_now(&sig, "kgo", "kgo@localhost"), "making commit signature");
  return GitSignaturePtr(sig);
}

}  // namespace

std::string GitRepo::commit(const std::string& message) {
  git_index* raw_index = nullptr;
  git_check(git_repository_index(&raw_index, m_repo.get()), "reading index");
  GitIndexPtr index(raw_index);
  git_oid tree_id;
  git_check(git_index_write_tree(&tree_id, index.get()), "writing tree");
  git_tree* raw_tree = nullptr;
  git_check(git_tree_lookup(&raw_tree, m_repo.get(), &tree_id), "looking up tree");
  GitTreePtr tree(raw_tree);

  GitCommitPtr parent;
  if (auto h = head()) {
    parent = lookup_commit(*h);
  }
  const git_commit* parents[] = {parent.get()};
  GitSignaturePtr sig = make_signature(m_repo.get());
  git_oid commit_id;
  git_check(git_commit_create(&commit_id, m_repo.get(), "HEAD", sig.get(), sig.get(), nullptr,
                              message.c_str(), tree.get(), parent ? 1 : 0, parents),
            "git commit");
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, &commit_id);
  return hex;
}

std::optional<GitRepo> GitRepo::containing(const std::filesystem::path& dir) {
  git_global_init();
  git_repository* raw = nullptr;
  if (git_repository_open_ext(&raw, dir.c_str(), 0, nullptr) != 0) return std::nullopt;
  GitRepoPtr repo(raw);
  const char* workdir = git_repository_workdir(raw);
  return GitRepo(std::move(repo), workdir ? std::filesystem::path(workdir) : dir);
}

std::optional<std::string> GitRepo::head() const {
  git_oid oid;
  int rc = git_reference_name_to_id(&oid, m_repo.get(), "HEAD");
  if (rc == GIT_ENOTFOUND || rc == GIT_EUNBORNBRANCH) {
    return std::nullopt;
  }
  git_check(rc, "resolving HEAD");
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, &oid);
  return std::string(hex);
}

GitCommitPtr GitRepo::lookup_commit(const std::string& rev) const {
  git_object* obj = nullptr;
  git_check(git_revparse_single(&obj, m_repo.get(), rev.c_str()), "resolving " + rev);
  GitObjectPtr holder(obj);
  git_commit* commit = nullptr;
  git_check(git_commit_lookup(&commit, m_repo.get(), git_object_id(obj)), "looking up commit " + rev);
  return GitCommitPtr(commit);
}

std::vector<CommitInfo> GitRepo::log(size_t limit) const {
  std::vector<CommitInfo> out;
  if (!head()) {
    return out;
  }
  git_revwalk* raw = nullptr;
  git_check(git_revwalk_new(&raw, m_repo.get()), "git log");
  GitRevwalkPtr walk(raw);
  git_revwalk_sorting(walk.get(), GIT_SORT_TIME | GIT_SORT_TOPOLOGICAL);
  git_check(git_revwalk_push_head(walk.get()), "git log");
  git_oid oid;
  while (git_revwalk_next(&oid, walk.get()) == 0) {
    git_commit* c = nullptr;
    git_check(git_commit_lookup(&c, m_repo.get(), &oid), "git log");
    GitCommitPtr commit(c);
    CommitInfo info;
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof hex, &oid);
    info.id = hex;
    info.message = git_commit_message(c) ? git_commit_message(c) : "";
    info.summary = git_commit_summary(c) ? git_commit_summary(c) : "";
    const git_signature* a = git_commit_author(c);
    info.author = a && a->name ? a->name : "";
    info.time = static_cast<long long>(git_commit_time(c));
    out.push_back(std::move(info));
    if (limit && out.size() >= limit) {
      break;
    }
  }
  return out;
}

std::optional<std::string> GitRepo::read_at(const std::string& rev, const std::string& path) const {
  GitCommitPtr commit = lookup_commit(rev);
  git_tree* raw_tree = nullptr;
  git_check(git_commit_tree(&raw_tree, commit.get()), "reading tree of " + rev);
  GitTreePtr tree(raw_tree);
  git_tree_entry* raw_entry = nullptr;
  int rc = git_tree_entry_bypath(&raw_entry, tree.get(), path.c_str());
  if (rc == GIT_ENOTFOUND) {
    return std::nullopt;
  }
  git_check(rc, "finding " + path + " at " + rev);
  GitTreeEntryPtr entry(raw_entry);
  git_blob* raw_blob = nullptr;
  if (git_tree_entry_type(entry.get()) != GIT_OBJECT_BLOB) {
    return std::nullopt;
  }
  git_check(git_blob_lookup(&raw_blob, m_repo.get(), git_tree_entry_id(entry.get())),
            "reading " + path + " at " + rev);
  GitBlobPtr blob(raw_blob);
  return std::string(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                     static_cast<size_t>(git_blob_rawsize(blob.get())));
}

std::vector<std::pair<std::string, std::string>> GitRepo::blobs_at(const std::string& rev, const std::string& dir) const {
  std::vector<std::pair<std::string, std::string>> out;
  GitCommitPtr commit = lookup_commit(rev);
  git_tree* raw_tree = nullptr;
  git_check(git_commit_tree(&raw_tree, commit.get()), "reading tree of " + rev);
  GitTreePtr root(raw_tree);
  git_tree_entry* raw_entry = nullptr;
  if (git_tree_entry_bypath(&raw_entry, root.get(), dir.c_str()) != 0) return out;
  GitTreeEntryPtr entry(raw_entry);
  if (git_tree_entry_type(entry.get()) != GIT_OBJECT_TREE) return out;
  git_tree* raw_sub = nullptr;
  git_check(git_tree_lookup(&raw_sub, m_repo.get(), git_tree_entry_id(entry.get())), "reading " + dir + " at " + rev);
  GitTreePtr sub(raw_sub);
  for (size_t i = 0; i < git_tree_entrycount(sub.get()); ++i) {
    const git_tree_entry* e = git_tree_entry_byindex(sub.get(), i);
    if (git_tree_entry_type(e) != GIT_OBJECT_BLOB) continue;
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof hex, git_tree_entry_id(e));
    out.emplace_back(git_tree_entry_name(e), hex);
  }
  return out;
}

void GitRepo::restore_paths(const std::string& rev, const std::vector<std::string>& paths) {
  GitCommitPtr commit = lookup_commit(rev);
  std::vector<char*> cpaths;
  std::vector<std::string> copies = paths;
  for (auto& p : copies) {
    cpaths.push_back(p.data());
  }
  git_checkout_options opts = GIT_CHECKOUT_OPTIONS_INIT;
  opts.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH;
  opts.paths.strings = cpaths.data();
  opts.paths.count = cpaths.size();
  git_check(git_checkout_tree(m_repo.get(), reinterpret_cast<git_object*>(commit.get()), &opts),
            "restoring files from " + rev);
}

void GitRepo::reset_hard(const std::string& rev) {
  GitCommitPtr commit = lookup_commit(rev);
  git_check(git_reset(m_repo.get(), reinterpret_cast<git_object*>(commit.get()), GIT_RESET_HARD,
                      nullptr),
            "resetting to " + rev);
}

std::vector<std::string> GitRepo::changed_paths() const {
  git_status_options opts = GIT_STATUS_OPTIONS_INIT;
  opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
  opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS;
  git_status_list* raw = nullptr;
  git_check(git_status_list_new(&raw, m_repo.get(), &opts), "git status");
  std::unique_ptr<git_status_list, GitFree<git_status_list_free>> list(raw);
  std::vector<std::string> out;
  size_t n = git_status_list_entrycount(list.get());
  for (size_t i = 0; i < n; ++i) {
    const git_status_entry* e = git_status_byindex(list.get(), i);
    const git_diff_delta* d = e->index_to_workdir ? e->index_to_workdir : e->head_to_index;
    if (d) {
      out.push_back(d->new_file.path ? d->new_file.path : d->old_file.path);
    }
  }
  return out;
}

}  // namespace kgo::core

namespace kgo::core {

void GitRepo::hold_objects_in_memory() {
  if (m_mempack) return;
  git_odb* raw = nullptr;
  git_check(git_repository_odb(&raw, m_repo.get()), "opening object database");
  std::unique_ptr<git_odb, GitFree<git_odb_free>> odb(raw);
  git_odb_backend* backend = nullptr;
  git_check(git_mempack_new(&backend), "making in-memory object store");
  // Highest priority, so writes land here; the odb owns the backend from now on.
  if (int rc = git_odb_add_backend(odb.get(), backend, 1000); rc < 0) {
    backend->free(backend);
    git_check(rc, "adding in-memory object store");
  }
  m_mempack = backend;
}

void GitRepo::write_held_objects() {
  if (!m_mempack) return;
  git_buf pack = GIT_BUF_INIT;
  git_check(git_mempack_dump(&pack, m_repo.get(), m_mempack), "packing new objects");
  std::unique_ptr<git_buf, GitFree<git_buf_dispose>> pack_holder(&pack);
  git_odb* raw = nullptr;
  git_check(git_repository_odb(&raw, m_repo.get()), "opening object database");
  std::unique_ptr<git_odb, GitFree<git_odb_free>> odb(raw);
  git_odb_writepack* writer = nullptr;
  git_check(git_odb_write_pack(&writer, odb.get(), nullptr, nullptr), "writing packfile");
  std::unique_ptr<git_odb_writepack, void (*)(git_odb_writepack*)> w(
      writer, [](git_odb_writepack* p) { p->free(p); });
  git_indexer_progress stats{};
  git_check(writer->append(writer, pack.ptr, pack.size, &stats), "writing packfile");
  git_check(writer->commit(writer, &stats), "indexing packfile");
  git_check(git_mempack_reset(m_mempack), "clearing in-memory object store");
}

}  // namespace kgo::core
