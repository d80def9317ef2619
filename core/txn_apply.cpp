// Applying a transaction journal: git objects first, one compare-and-swap branch move, then the
// work tree and the index. Every step is idempotent; commit ids depend only on the journal.
#include <deque>
#include <map>

#include <git2.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/git.hpp"
#include "core/memory.hpp"
#include "core/txn_journal.hpp"
#include "core/ws_paths.hpp"

namespace kgo::core {

namespace {

using GitReferencePtr = std::unique_ptr<git_reference, GitFree<git_reference_free>>;

std::string hex(const git_oid& id) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof buf, &id);
  return buf;
}

git_oid oid_of(const std::string& text) {
  git_oid id;
  git_check(git_oid_fromstr(&id, text.c_str()), "parsing commit id " + text);
  return id;
}

GitRepoPtr open_repo(const fs::path& ws) {
  git_global_init();
  git_repository* raw = nullptr;
  if (git_repository_open_ext(&raw, ws.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) != 0) {
    const git_error* e = git_error_last();
    throw Error("cannot open the git repository of " + ws.string() + " (" + (e ? e->message : "unknown error") +
                    "); kgo commits every change it makes, so it changed nothing: restore .git from a backup or clone",
                ExitCode::git_error);
  }
  return GitRepoPtr(raw);
}

GitCommitPtr commit_of(git_repository* repo, const git_oid& id) {
  git_commit* c = nullptr;
  git_check(git_commit_lookup(&c, repo, &id), "looking up commit " + hex(id));
  return GitCommitPtr(c);
}

GitTreePtr tree_of(git_commit* c) {
  git_tree* t = nullptr;
  git_check(git_commit_tree(&t, c), "reading a commit's tree");
  return GitTreePtr(t);
}

std::optional<std::string> blob_at(git_repository* repo, git_tree* tree, const std::string& path) {
  git_tree_entry* raw = nullptr;
  if (git_tree_entry_bypath(&raw, tree, path.c_str()) != 0) return std::nullopt;
  GitTreeEntryPtr entry(raw);
  git_blob* blob = nullptr;
  git_check(git_blob_lookup(&blob, repo, git_tree_entry_id(entry.get())), "reading " + path);
  GitBlobPtr holder(blob);
  return std::string(static_cast<const char*>(git_blob_rawcontent(blob)), static_cast<size_t>(git_blob_rawsize(blob)));
}

git_filemode_t mode_at(git_tree* tree, const std::string& path) {
  git_tree_entry* raw = nullptr;
  if (git_tree_entry_bypath(&raw, tree, path.c_str()) != 0) return GIT_FILEMODE_BLOB;
  GitTreeEntryPtr entry(raw);
  git_filemode_t m = git_tree_entry_filemode(entry.get());
  return m == GIT_FILEMODE_BLOB_EXECUTABLE ? m : GIT_FILEMODE_BLOB;
}

// Idempotent: a file that already holds `content` is left alone; nullopt deletes it.
void write_worktree_file(const fs::path& ws, const std::string& path, const std::optional<std::string>& content) {
  check_no_follow(ws, path);
  fs::path target = ws / path;
  std::error_code ec;
  if (!content) {
    fs::remove(target, ec);
    fault_checkpoint("worktree: file removed");
    return;
  }
  if (try_read_file(target) == content) return;
  fs::create_directories(target.parent_path(), ec);
  write_file_atomic_checked(target, *content);
}

void finish(const fs::path& ws) {
  std::error_code ec;
  fs::remove(journal_path(ws), ec);
  fsync_dir(ws / ".kgo");
  fault_checkpoint("txn: journal removed");
  fs::remove_all(staging_dir(ws), ec);
}

}  // namespace

std::optional<std::string> journal_target_problem(const fs::path& ws, const std::string& rel) {
  if (!plain_relative_path(rel)) return "'" + rel + "' is not a plain path inside the workspace";
  bool top = rel.find('/') == std::string::npos;
  bool under = false;
  for (const char* d : {"memory/", "plans/", "profiles/", "rejected/", "report/"}) under = under || rel.rfind(d, 0) == 0;
  if (!top && !under) return "'" + rel + "' is not a place kgo's operations write";
  try {
    check_no_follow(ws, rel);
  } catch (const Error& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

namespace {

[[noreturn]] void unsound(const fs::path& ws, const std::string& why) {
  throw Error("the git repository of " + ws.string() + " is not sound: " + why + "; kgo changed nothing",
              ExitCode::git_error);
}

struct ObjectScan {
  git_odb* odb;
  std::string missing;
};

// Every object the tip's tree names must be present: kgo never commits onto a broken history.
int require_object(const char* root, const git_tree_entry* entry, void* payload) {
  auto* scan = static_cast<ObjectScan*>(payload);
  if (git_odb_exists(scan->odb, git_tree_entry_id(entry))) return 0;
  scan->missing = hex(*git_tree_entry_id(entry)) + " (" + root + git_tree_entry_name(entry) + ")";
  return -1;
}

// The branch HEAD names exists, its tip and every object of its tree are present, and no git lock
// is held. Runs before a transaction writes anything.
GitReferencePtr sound_branch(git_repository* r, const fs::path& ws) {
  git_reference* raw_head = nullptr;
  if (git_reference_lookup(&raw_head, r, "HEAD") != 0) unsound(ws, "HEAD is missing (restore .git/HEAD: ref: refs/heads/main)");
  GitReferencePtr head_ref(raw_head);
  if (git_reference_type(head_ref.get()) != GIT_REFERENCE_SYMBOLIC) {
    throw Error("HEAD is detached in " + ws.string() + "; check out the workspace branch (git switch main) and retry",
                ExitCode::git_error);
  }
  std::string branch = git_reference_symbolic_target(head_ref.get());
  git_reference* raw = nullptr;
  if (git_reference_lookup(&raw, r, branch.c_str()) != 0) {
    unsound(ws, "HEAD names " + branch + ", which does not exist, so committing would start a new history "
                "without the old one; restore it (git update-ref " + branch + " <last commit>, `git reflog` lists it)");
  }
  GitReferencePtr ref(raw);
  git_reference* resolved = nullptr;
  if (git_reference_resolve(&resolved, ref.get()) != 0) unsound(ws, branch + " does not resolve to a commit");
  GitReferencePtr tip_ref(resolved);
  git_commit* raw_commit = nullptr;
  if (git_commit_lookup(&raw_commit, r, git_reference_target(tip_ref.get())) != 0) {
    unsound(ws, "the tip commit of " + branch + " is missing (git fsck shows what is damaged)");
  }
  GitCommitPtr tip(raw_commit);
  git_tree* raw_tree = nullptr;
  if (git_commit_tree(&raw_tree, tip.get()) != 0) unsound(ws, "the tree of the tip commit is missing (git fsck)");
  GitTreePtr tree(raw_tree);
  git_odb* raw_odb = nullptr;
  git_check(git_repository_odb(&raw_odb, r), "opening the object database");
  std::unique_ptr<git_odb, GitFree<git_odb_free>> odb(raw_odb);
  ObjectScan scan{odb.get(), ""};
  if (git_tree_walk(tree.get(), GIT_TREEWALK_PRE, require_object, &scan) != 0) {
    unsound(ws, "object " + (scan.missing.empty() ? std::string("?") : scan.missing) +
                    " of the branch tip is missing (git fsck shows what is damaged)");
  }
  fs::path git_dir = git_repository_path(r);
  for (const std::string& lock : {std::string("index.lock"), std::string("HEAD.lock"), std::string("packed-refs.lock"),
                                  branch + ".lock"}) {
    std::error_code ec;
    if (fs::exists(git_dir / lock, ec)) {
      unsound(ws, (git_dir / lock).string() + " exists: another git process is writing; if none is running, "
                  "delete that file and retry");
    }
  }
  return tip_ref;
}

}  // namespace

Journal begin_journal(const fs::path& workspace, const std::string& op) {
  GitRepoPtr repo = open_repo(workspace);
  GitReferencePtr head = sound_branch(repo.get(), workspace);
  Journal j;
  j.op = op;
  j.branch = git_reference_name(head.get());
  j.base = hex(*git_reference_target(head.get()));
  git_signature* sig = nullptr;
  if (git_signature_default(&sig, repo.get()) == 0) {
    GitSignaturePtr holder(sig);
    j.sig_name = sig->name;
    j.sig_email = sig->email;
  } else {
    j.sig_name = "kgo";
    j.sig_email = "kgo@localhost";
  }
  j.sig_time = record_epoch_now();
  return j;
}

TxnResult apply_journal(const fs::path& ws, const Journal& j) {
  TxnResult result;
  if (j.commits.empty()) {
    for (const auto& f : j.worktree) write_worktree_file(ws, f.path, f.content);
    finish(ws);
    result.outcome = "completed";
    return result;
  }
  GitRepoPtr repo = open_repo(ws);
  git_repository* r = repo.get();
  const git_oid base = oid_of(j.base);
  GitCommitPtr parent = commit_of(r, base);
  GitTreePtr tree = tree_of(parent.get());
  git_signature* raw_sig = nullptr;
  git_check(git_signature_new(&raw_sig, j.sig_name.c_str(), j.sig_email.c_str(), j.sig_time, 0), "making commit signature");
  GitSignaturePtr sig(raw_sig);

  std::map<std::string, std::optional<std::string>> latest;  // content as of the newest commit so far
  std::map<std::string, bool> to_worktree;
  for (const auto& c : j.commits) {
    std::deque<std::string> paths;  // stable storage for git_tree_update::path
    std::vector<git_tree_update> updates;
    auto upsert = [&](const std::string& path, const std::string& content) {
      git_oid blob;
      git_check(git_blob_create_from_buffer(&blob, r, content.data(), content.size()), "storing " + path);
      fault_checkpoint("git: blob written");
      paths.push_back(path);
      updates.push_back({GIT_TREE_UPDATE_UPSERT, blob, mode_at(tree.get(), path), paths.back().c_str()});
      latest[path] = content;
    };
    for (const auto& f : c.files) {
      to_worktree[f.path] = to_worktree[f.path] || f.write_worktree;
      if (f.content) {
        upsert(f.path, *f.content);
      } else {
        latest[f.path] = std::nullopt;
        if (blob_at(r, tree.get(), f.path)) {
          paths.push_back(f.path);
          updates.push_back({GIT_TREE_UPDATE_REMOVE, git_oid{}, GIT_FILEMODE_BLOB, paths.back().c_str()});
        }
      }
    }
    for (const auto& path : c.record_commit_of_previous) {
      auto it = latest.find(path);
      std::optional<std::string> text = it != latest.end() ? it->second : blob_at(r, tree.get(), path);
      if (!text) throw Error("transaction names record " + path + " that it does not hold", ExitCode::internal);
      nlohmann::json rec = nlohmann::json::parse(*text);
      rec["git_commit"] = hex(*git_commit_id(parent.get()));
      upsert(path, dump_record(rec));
    }
    git_oid tree_id;
    git_check(git_tree_create_updated(&tree_id, r, tree.get(), updates.size(), updates.data()), "writing tree");
    fault_checkpoint("git: tree written");
    git_tree* raw_tree = nullptr;
    git_check(git_tree_lookup(&raw_tree, r, &tree_id), "looking up tree");
    GitTreePtr new_tree(raw_tree);
    const git_commit* parents[] = {parent.get()};
    git_oid commit_id;
    git_check(git_commit_create(&commit_id, r, nullptr, sig.get(), sig.get(), nullptr, c.message.c_str(),
                                new_tree.get(), 1, parents),
              "git commit");
    fault_checkpoint("git: commit written");
    parent = commit_of(r, commit_id);
    tree = std::move(new_tree);
    result.commits.push_back(hex(commit_id));
  }
  const git_oid final_id = *git_commit_id(parent.get());

  git_oid current;
  git_check(git_reference_name_to_id(&current, r, j.branch.c_str()), "resolving " + j.branch);
  if (git_oid_equal(&current, &base)) {
    git_reference* moved = nullptr;
    git_check(git_reference_create_matching(&moved, r, j.branch.c_str(), &final_id, 1, &base, ("kgo: " + j.op).c_str()),
              "moving " + j.branch);
    GitReferencePtr holder(moved);
    fault_checkpoint("git: branch moved");
  } else if (!git_oid_equal(&current, &final_id)) {
    finish(ws);
    if (git_graph_descendant_of(r, &current, &final_id) == 1) {
      result.outcome = "completed earlier; the branch has moved on since, so the work tree was left as it is";
    } else {
      result.commits.clear();
      result.outcome = "abandoned: " + j.branch + " moved to " + hex(current) + " after the operation began at " + j.base +
                       "; nothing was committed";
    }
    return result;
  }

  for (const auto& [path, content] : latest) {
    if (to_worktree[path]) write_worktree_file(ws, path, content);
  }
  git_index* raw_index = nullptr;
  git_check(git_repository_index(&raw_index, r), "reading index");
  GitIndexPtr index(raw_index);
  git_check(git_index_read_tree(index.get(), tree.get()), "updating index");
  git_check(git_index_write(index.get()), "writing index");
  fault_checkpoint("git: index written");
  finish(ws);
  result.outcome = "completed";
  return result;
}

}  // namespace kgo::core
