#include "core/txn.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <regex>

#include <git2.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/untrusted.hpp"
#include "core/json_schema.hpp"
#include "core/git.hpp"
#include "core/memory.hpp"
#include "core/txn_journal.hpp"
#include "core/txn_ops.hpp"
#include "core/ws_paths.hpp"

namespace kgo::core {

using nlohmann::json;

namespace {

struct FaultState {
  long at = 0;
  bool trace = false;
  long count = 0;
};

FaultState& fault_state() {
  static FaultState s = [] {
    FaultState f;
    if (const char* v = std::getenv("KGO_FAULT_AT")) f.at = std::strtol(v, nullptr, 10);
    f.trace = std::getenv("KGO_FAULT_TRACE") != nullptr;
    return f;
  }();
  return s;
}

}  // namespace

void set_fault_injection(long at) {
  fault_state().at = at;
  fault_state().count = 0;
}

void fault_checkpoint(const char* label) {
  FaultState& f = fault_state();
  if (f.at <= 0 && !f.trace) return;
  ++f.count;
  if (f.trace) std::fprintf(stderr, "kgo-checkpoint %ld %s\n", f.count, label);
  if (f.count == f.at) {
    std::fflush(nullptr);
    ::kill(::getpid(), SIGKILL);
  }
}

namespace {

// The temporary file is made in `temp_dir` (on the same file system as `path`), then renamed to `path`.
void write_atomic_via(const fs::path& temp_dir, const fs::path& path, const std::string& content) {
  fs::path dir = path.parent_path();
  std::string tmpl = (temp_dir.empty() ? fs::path(".") : temp_dir).string() + "/." + path.filename().string() + ".tmpXXXXXX";
  int fd = ::mkstemp(tmpl.data());
  auto fail = [&](int err) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmpl.c_str());
    return Error("cannot write " + path.string() + ": " + std::strerror(err), ExitCode::not_writable);
  };
  if (fd < 0) throw fail(errno);
  size_t done = 0;
  bool halfway_marked = false;
  while (done < content.size()) {
    size_t chunk = content.size() - done;
    if (!halfway_marked && content.size() > 1) chunk = content.size() / 2;  // a torn write, if killed next
    ssize_t n = ::write(fd, content.data() + done, chunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw fail(errno);
    }
    done += static_cast<size_t>(n);
    if (!halfway_marked) {
      halfway_marked = true;
      fault_checkpoint("write: half of the temporary file");
    }
  }
  ::fchmod(fd, 0644);
  if (::fsync(fd) != 0) throw fail(errno);
  ::close(fd);
  fd = -1;
  fault_checkpoint("write: temporary file complete");
  if (::rename(tmpl.c_str(), path.c_str()) != 0) throw fail(errno);
  fsync_dir(dir);
  fault_checkpoint("write: renamed into place");
}

}  // namespace

void write_file_atomic_checked(const fs::path& path, const std::string& content) {
  write_atomic_via(path.parent_path(), path, content);
}

namespace {

// Files a killed kgo (or a killed git step inside it) may leave behind.
void remove_debris(const fs::path& ws, bool interrupted) {
  static const std::regex temp_name(R"(^\..+\.tmp[A-Za-z0-9]{6}$)");
  std::error_code ec;
  auto sweep = [&](const fs::path& dir, bool recursive) {
    if (!fs::is_directory(dir, ec)) return;
    auto visit = [&](const fs::directory_entry& e) {
      if (e.is_regular_file(ec) && std::regex_match(e.path().filename().string(), temp_name)) fs::remove(e.path(), ec);
    };
    if (recursive) {
      for (const auto& e : fs::recursive_directory_iterator(dir, ec)) visit(e);
    } else {
      for (const auto& e : fs::directory_iterator(dir, ec)) visit(e);
    }
  };
  sweep(ws / "memory", false);
  sweep(ws / "plans", false);
  sweep(staging_dir(ws), false);  // one-file writes make their temporary files there
  if (!interrupted) return;
  sweep(ws, false);
  sweep(ws / ".kgo", false);
  sweep(ws / "rejected", true);
  fs::path git = ws / ".git";
  for (const char* lock : {"index.lock", "HEAD.lock", "packed-refs.lock", "config.lock", "logs/HEAD.lock"}) {
    fs::remove(git / lock, ec);
  }
  for (const char* dir : {"refs/heads", "logs/refs/heads"}) {
    for (const auto& e : fs::recursive_directory_iterator(git / dir, ec)) {
      if (e.path().extension() == ".lock") fs::remove(e.path(), ec);
    }
  }
  for (const auto& e : fs::recursive_directory_iterator(git / "objects", ec)) {
    if (e.path().filename().string().rfind("tmp_", 0) == 0) fs::remove(e.path(), ec);
  }
}

json files_to_json(const std::vector<JournalFile>& files) {
  json out = json::array();
  for (const auto& f : files) {
    out.push_back({{"path", f.path}, {"staged", f.staged ? json(*f.staged) : json()},
                   {"sha256", f.sha256}, {"write_worktree", f.write_worktree}});
  }
  return out;
}

json journal_to_json(const Journal& j) {
  json commits = json::array();
  for (const auto& c : j.commits) {
    commits.push_back({{"message", c.message}, {"files", files_to_json(c.files)},
                       {"record_commit_of_previous", c.record_commit_of_previous}});
  }
  return {{"kgo_journal", 2},
          {"worktree", files_to_json(j.worktree)},
          {"owner", {{"dev", j.owner_dev}, {"ino", j.owner_ino}}},
          {"op", j.op},
          {"base", j.base},
          {"branch", j.branch},
          {"signature", {{"name", j.sig_name}, {"email", j.sig_email}, {"time", j.sig_time}}},
          {"commits", commits}};
}

struct KgoDirId {
  unsigned long long dev = 0, ino = 0;
};

// The identity of this workspace's .kgo folder: a journal is valid only where it was written, so a
// journal that arrives with a copied, unpacked or cloned workspace is never applied.
KgoDirId kgo_dir_id(const fs::path& ws) {
  struct stat st {};
  if (::lstat((ws / ".kgo").c_str(), &st) != 0) return {};
  return {static_cast<unsigned long long>(st.st_dev), static_cast<unsigned long long>(st.st_ino)};
}

[[noreturn]] void refuse_journal(const fs::path& ws, const std::string& why) {
  throw Error(journal_path(ws).string() + " was not written by kgo in this workspace (" + why +
                  "); kgo applies nothing from it and leaves it as it is. If you did not expect an "
                  "interrupted kgo operation here, discard it: rm -r " + journal_path(ws).string() + " " +
                  staging_dir(ws).string(),
              ExitCode::unsafe_path);
}

JournalFile file_from_json(const json& f, const fs::path& ws) {
  static const std::regex staged_name(R"(^[cw][0-9]{1,4}f[0-9]{1,6}$)");
  JournalFile jf;
  jf.path = f.at("path").get<std::string>();
  if (auto why = journal_target_problem(ws, jf.path)) refuse_journal(ws, *why);
  jf.write_worktree = f.at("write_worktree").get<bool>();
  jf.sha256 = f.at("sha256").get<std::string>();
  if (f.at("staged").is_string()) {
    jf.staged = f["staged"].get<std::string>();
    if (!std::regex_match(*jf.staged, staged_name)) refuse_journal(ws, "it stages '" + *jf.staged + "'");
    check_no_follow(ws, ".kgo/txn/" + *jf.staged);
    jf.content = try_read_file(staging_dir(ws) / *jf.staged);
    if (!jf.content || sha256_hex(*jf.content) != jf.sha256) {
      refuse_journal(ws, "staged file " + *jf.staged + " is missing or does not match the journal");
    }
  }
  return jf;
}

Journal journal_from_json(const json& j, const fs::path& ws) {
  static const std::regex commit_id(R"(^[0-9a-f]{40}$)");
  if (!j.is_object()) refuse_journal(ws, "it is not a JSON object");
  try {
    KgoDirId here = kgo_dir_id(ws);
    const json& owner = j.at("owner");
    if (j.at("kgo_journal") != 2 || owner.at("dev").get<unsigned long long>() != here.dev ||
        owner.at("ino").get<unsigned long long>() != here.ino) {
      refuse_journal(ws, "it belongs to another copy of the workspace, or to another kgo version");
    }
    Journal out;
    out.op = j.at("op").get<std::string>();
    out.base = j.at("base").get<std::string>();
    out.branch = j.at("branch").get<std::string>();
    bool commits = !j.at("commits").empty();
    if (commits && !std::regex_match(out.base, commit_id)) refuse_journal(ws, "its base is not a commit id");
    if (commits && (out.branch.rfind("refs/heads/", 0) != 0 || !plain_relative_path(out.branch.substr(11)))) {
      refuse_journal(ws, "its branch '" + out.branch + "' is not a local branch");
    }
    const json& s = j.at("signature");
    out.sig_name = s.at("name").get<std::string>();
    out.sig_email = s.at("email").get<std::string>();
    out.sig_time = s.at("time").get<long long>();
    for (const auto& c : j.at("commits")) {
      JournalCommit jc;
      jc.message = c.at("message").get<std::string>();
      jc.record_commit_of_previous = c.at("record_commit_of_previous").get<std::vector<std::string>>();
      for (const auto& rel : jc.record_commit_of_previous) {
        if (!plain_relative_path(rel) || rel.rfind("memory/", 0) != 0) refuse_journal(ws, "it names record " + rel);
      }
      for (const auto& f : c.at("files")) jc.files.push_back(file_from_json(f, ws));
      out.commits.push_back(std::move(jc));
    }
    for (const auto& f : j.value("worktree", json::array())) out.worktree.push_back(file_from_json(f, ws));
    if (out.commits.empty() == out.worktree.empty()) refuse_journal(ws, "it holds both commits and work-tree files, or neither");
    return out;
  } catch (const json::exception& e) {
    refuse_journal(ws, std::string("it is not a kgo journal: ") + e.what());
  }
}

// A record decided at HEAD (quality gate not PENDING) whose work-tree file differs was edited by hand
// after its decision: no transaction may sweep that edit into a commit.
void refuse_edited_decided(const fs::path& ws) {
  GitRepo repo = GitRepo::open(ws);
  for (int n : record_versions(ws)) {
    std::string rel = "memory/" + version_name(n) + ".json";
    auto committed = repo.read_at("HEAD", rel);
    if (!committed) continue;
    auto now = try_read_file(ws / rel);
    if (now == committed) continue;
    json then = parse_json_bounded(*committed);
    if (!then.is_object() || gate_result(then) == "PENDING") continue;
    json edited = now ? parse_json_bounded(*now) : json();
    std::string fields;
    for (const auto& f : changed_fields(then, edited)) fields += (fields.empty() ? "" : ", ") + f;
    throw Error(rel + " was changed after its decision (quality gate " + gate_result(then) + "; changed: " + fields +
                    "); a decided record is final and kgo will not commit the edit. Restore it: git checkout -- " + rel,
                ExitCode::record_error);
  }
}

}  // namespace

bool transaction_pending(const fs::path& workspace) {
  std::error_code ec;
  return fs::exists(journal_path(workspace), ec);
}

namespace {

void refuse_pending(const fs::path& workspace) {
  if (transaction_pending(workspace)) {
    throw Error("an interrupted kgo operation is still pending in " + journal_path(workspace).string() +
                    "; run any kgo command on this workspace to finish it first",
                ExitCode::internal);
  }
}

void check_targets(const fs::path& workspace, const std::vector<TxnFile>& files) {
  for (const auto& f : files) {
    if (auto why = journal_target_problem(workspace, f.path)) throw Error(*why, ExitCode::unsafe_path);
  }
}

// Stages `f` as .kgo/txn/<name> (its content) for the journal.
JournalFile stage(const fs::path& workspace, const TxnFile& f, const std::string& name) {
  JournalFile jf;
  jf.path = f.path;
  jf.write_worktree = f.write_worktree;
  jf.content = f.content;
  if (f.content) {
    jf.staged = name;
    jf.sha256 = sha256_hex(*f.content);
    write_file_atomic_checked(staging_dir(workspace) / name, *f.content);
  }
  return jf;
}

void fresh_staging(const fs::path& workspace, Journal& j) {
  std::error_code ec;
  fs::remove_all(staging_dir(workspace), ec);
  fs::create_directories(staging_dir(workspace));
  KgoDirId id = kgo_dir_id(workspace);
  j.owner_dev = id.dev;
  j.owner_ino = id.ino;
}

// Writes the journal: the commit point. From here on the operation is finished, now or by the next command.
void commit_point(const fs::path& workspace, const Journal& j) {
  std::string text = journal_to_json(j).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  write_file_atomic_checked(journal_path(workspace), text);
  fault_checkpoint("txn: journal written");
}

}  // namespace

TxnResult run_transaction(const fs::path& workspace, const std::string& op,
                          const std::vector<TxnCommit>& commits) {
  refuse_pending(workspace);
  for (const auto& c : commits) check_targets(workspace, c.files);
  Journal j = begin_journal(workspace, op);
  refuse_edited_decided(workspace);
  fresh_staging(workspace, j);
  for (size_t ci = 0; ci < commits.size(); ++ci) {
    JournalCommit jc;
    jc.message = commits[ci].message;
    jc.record_commit_of_previous = commits[ci].record_commit_of_previous;
    for (size_t fi = 0; fi < commits[ci].files.size(); ++fi) {
      jc.files.push_back(stage(workspace, commits[ci].files[fi], "c" + std::to_string(ci) + "f" + std::to_string(fi)));
    }
    j.commits.push_back(std::move(jc));
  }
  commit_point(workspace, j);
  return apply_journal(workspace, j);
}

void write_files(const fs::path& workspace, const std::string& op, const std::vector<TxnFile>& files) {
  if (files.empty()) return;
  LockedWorkspace guard(workspace);
  refuse_pending(workspace);
  check_targets(workspace, files);
  if (files.size() == 1 && files[0].content) {
    // One file needs no journal: renaming it into place from .kgo/txn/ is atomic, and a kill before
    // that leaves its temporary file there, not beside the target.
    fs::path target = workspace / files[0].path;
    fs::create_directories(staging_dir(workspace));
    fs::create_directories(target.parent_path());
    write_atomic_via(staging_dir(workspace), target, *files[0].content);
    return;
  }
  Journal j;
  j.op = op;
  fresh_staging(workspace, j);
  for (size_t fi = 0; fi < files.size(); ++fi) j.worktree.push_back(stage(workspace, files[fi], "w0f" + std::to_string(fi)));
  commit_point(workspace, j);
  apply_journal(workspace, j);
}

namespace {
std::optional<Recovery> g_last_recovery;
}  // namespace

const std::optional<Recovery>& last_recovery() { return g_last_recovery; }

std::optional<std::string> commit_files(const fs::path& workspace, const std::string& op, const std::string& message,
                                        const std::vector<TxnFile>& files) {
  bool same = std::all_of(files.begin(), files.end(), [&](const TxnFile& f) {
    return try_read_file(workspace / f.path) == f.content;
  });
  if (same) {
    try {
      GitRepo repo = GitRepo::open(workspace);
      same = std::all_of(files.begin(), files.end(), [&](const TxnFile& f) {
        return repo.read_at("HEAD", f.path) == f.content;
      });
    } catch (const Error&) {
      same = false;  // run_transaction below names what is wrong with the repository
    }
  }
  if (same) return std::nullopt;
  return run_transaction(workspace, op, {TxnCommit{message, files, {}}}).commits.back();
}

std::optional<Recovery> recover_workspace(const fs::path& workspace) {
  if (!transaction_pending(workspace)) {
    remove_debris(workspace, false);
    return std::nullopt;
  }
  // Validate first: only a journal kgo wrote here vouches for the debris and git locks it sweeps.
  auto text = try_read_file(journal_path(workspace));
  if (!text) refuse_journal(workspace, "it is unreadable or not a regular file");
  Journal j = journal_from_json(parse_json_bounded(*text), workspace);
  remove_debris(workspace, true);
  Recovery r;
  r.op = j.op;
  r.result = apply_journal(workspace, j);
  g_last_recovery = r;
  return r;
}

namespace {
std::mutex g_guard_mutex;
std::map<std::string, int> g_guard_depth;

std::string guard_key(const fs::path& ws) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(ws, ec);
  return (ec ? ws : p).string();
}
}  // namespace

LockedWorkspace::LockedWorkspace(const fs::path& workspace) : m_workspace(workspace) {
  std::string key = guard_key(workspace);
  bool outermost;
  {
    std::lock_guard<std::mutex> g(g_guard_mutex);
    outermost = g_guard_depth[key]++ == 0;
  }
  if (!outermost) return;
  try {
    check_workspace_layout(workspace);
    m_lock.emplace(workspace);
    m_recovered = recover_workspace(workspace);
  } catch (...) {
    std::lock_guard<std::mutex> g(g_guard_mutex);
    --g_guard_depth[key];
    throw;
  }
}

LockedWorkspace::~LockedWorkspace() {
  std::lock_guard<std::mutex> g(g_guard_mutex);
  --g_guard_depth[guard_key(m_workspace)];
}

std::optional<Recovery> recover_if_interrupted(const fs::path& workspace) {
  if (!transaction_pending(workspace)) return std::nullopt;
  LockedWorkspace guard(workspace);
  return guard.recovered();
}

}  // namespace kgo::core
