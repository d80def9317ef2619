#include "core/init_replace.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <regex>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/txn.hpp"
#include "core/untrusted.hpp"

namespace kgo::core {

namespace {

// Beside a temporary folder while it replaces a workspace: the new folder's inode and where the
// old workspace goes. Written before the swap, removed after the move aside.
fs::path intent_path(const fs::path& tmp) { return tmp.string() + ".replacing"; }

unsigned long long inode_of(const fs::path& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 ? static_cast<unsigned long long>(st.st_ino) : 0;
}

// Renames without replacing anything; false when `to` exists.
bool rename_noreplace(const fs::path& from, const fs::path& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return true;
  if (errno == EEXIST) return false;
  throw Error("cannot rename " + from.string() + " to " + to.string() + ": " + std::strerror(errno),
              ExitCode::not_writable);
}

// Moves the old workspace (now at `from`) to `aside`, or to `aside-2`, `aside-3`, ... when taken.
fs::path move_aside(const fs::path& from, const fs::path& aside) {
  fs::path to = aside;
  for (int i = 2; !rename_noreplace(from, to); ++i) to = aside.string() + "-" + std::to_string(i);
  return to;
}

bool dead(const std::string& pid) { return ::kill(static_cast<pid_t>(std::stol(pid)), 0) != 0 && errno == ESRCH; }

// A killed replacement: the swap happened when `tmp` is no longer the new folder it recorded.
void finish_replacement(const fs::path& tmp, const fs::path& intent) {
  std::error_code ec;
  auto j = parse_json_bounded(try_read_file(intent).value_or(""));
  static const std::regex aside_name(R"(^kernel_opt_[A-Za-z0-9_.-]+\.replaced-[0-9T-]+$)");
  bool ours = j.is_object() && j.contains("new_ino") && j["new_ino"].is_number_unsigned() && j.contains("aside") &&
              j["aside"].is_string() && std::regex_match(j["aside"].get<std::string>(), aside_name);
  if (!ours) return;  // an intent kgo did not write: leave it and the folder for the user
  if (fs::exists(fs::symlink_status(tmp, ec))) {
    if (j["new_ino"].get<unsigned long long>() == inode_of(tmp)) {
      fs::remove_all(tmp, ec);  // killed before the swap: the new folder is debris
    } else {
      move_aside(tmp, tmp.parent_path() / j["aside"].get<std::string>());  // after: tmp holds the old workspace
    }
  }
  fs::remove(intent, ec);
}

}  // namespace

std::optional<fs::path> place_workspace(const fs::path& tmp, const fs::path& target, bool replace,
                                        const std::string& stamp) {
  std::error_code ec;
  fault_checkpoint("init: workspace built");
  if (!replace) {
    if (!rename_noreplace(tmp, target)) {
      fs::remove_all(tmp, ec);
      throw Error("workspace " + target.string() + " was created by another kgo init meanwhile; choose another name, "
                      "or pass --force to replace it",
                  ExitCode::workspace_exists);
    }
    fsync_dir(target.parent_path());
    return std::nullopt;
  }
  fs::path aside = target.string() + ".replaced-" + stamp;
  nlohmann::json intent = {{"new_ino", inode_of(tmp)}, {"aside", aside.filename().string()}};
  write_file_atomic_checked(intent_path(tmp), intent.dump() + "\n");
  if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) != 0) {
    int err = errno;
    fs::remove(intent_path(tmp), ec);
    if (err == ENOENT) return place_workspace(tmp, target, false, stamp);  // the old one went meanwhile
    fs::remove_all(tmp, ec);
    throw Error("cannot replace " + target.string() + ": " + std::strerror(err) +
                    " (kgo needs a file system with atomic renames; the old workspace is unchanged)",
                ExitCode::not_writable);
  }
  fsync_dir(target.parent_path());
  fault_checkpoint("init: workspaces swapped");
  fs::path moved = move_aside(tmp, aside);
  fsync_dir(target.parent_path());
  fault_checkpoint("init: old workspace moved aside");
  fs::remove(intent_path(tmp), ec);
  return moved;
}

void sweep_stale_temp_dirs(const fs::path& parent) {
  static const std::regex with_pid(R"(^\.kernel_opt_.+\.tmp-([0-9]{1,9})-[A-Za-z0-9]{6}$)");
  static const std::regex intent_name(R"(^(\.kernel_opt_.+\.tmp-([0-9]{1,9})-[A-Za-z0-9]{6})\.replacing$)");
  static const std::regex without_pid(R"(^\.kernel_opt_.+\.tmp[A-Za-z0-9]{6}$)");
  static const std::regex intent_temp(R"(^\.\.kernel_opt_.+\.tmp-([0-9]{1,9})-[A-Za-z0-9]{6}\.replacing\.tmp[A-Za-z0-9]{6}$)");
  std::error_code ec;
  auto day_ago = fs::file_time_type::clock::now() - std::chrono::hours(24);
  std::vector<fs::path> stale, intents;
  for (const auto& e : fs::directory_iterator(parent, ec)) {
    std::string name = e.path().filename().string();
    std::smatch m;
    if (std::regex_match(name, m, intent_temp)) {  // an intent killed while being written
      if (e.is_regular_file(ec) && !e.is_symlink(ec) && dead(m[1].str())) fs::remove(e.path(), ec);
      continue;
    }
    if (std::regex_match(name, m, intent_name)) {
      if (e.is_regular_file(ec) && !e.is_symlink(ec) && dead(m[2].str())) intents.push_back(e.path());
      continue;
    }
    if (!e.is_directory(ec) || e.is_symlink(ec)) continue;
    if (std::regex_match(name, m, with_pid) ? dead(m[1].str())
        : std::regex_match(name, without_pid) && fs::last_write_time(e.path(), ec) < day_ago) {
      stale.push_back(e.path());
    }
  }
  // Replacements first: their temporary folder may hold the old workspace, which is moved, never removed.
  for (const auto& intent : intents) {
    std::string s = intent.string();
    finish_replacement(s.substr(0, s.size() - std::string(".replacing").size()), intent);
  }
  for (const auto& dir : stale) {
    if (!fs::exists(intent_path(dir), ec)) fs::remove_all(dir, ec);
  }
}

}  // namespace kgo::core
