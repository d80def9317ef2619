#include "core/ws_paths.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace kgo::core {

namespace {

std::string kind_of(mode_t m) {
  if (S_ISLNK(m)) return "a symbolic link";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISCHR(m) || S_ISBLK(m)) return "a device";
  if (S_ISDIR(m)) return "a directory";
  return "not a regular file";
}

[[noreturn]] void refuse(const fs::path& ws, const std::string& rel, mode_t m, bool want_dir) {
  std::string what = kind_of(m);
  std::string target;
  if (S_ISLNK(m)) {
    std::error_code ec;
    fs::path t = fs::read_symlink(ws / rel, ec);
    if (!ec) target = " (to " + t.string() + ")";
  }
  throw Error((ws / rel).string() + " is " + what + target + ", not a " + (want_dir ? "directory" : "regular file") +
                  "; kgo never reads or writes through links or special files in a workspace. Replace it with a " +
                  "real " + (want_dir ? "directory" : "file") + " (for a tracked file: rm it, then git checkout -- " +
                  rel + "), or remove it",
              ExitCode::unsafe_path);
}

}  // namespace

bool plain_relative_path(const std::string& rel) {
  if (rel.empty() || rel.front() == '/' || rel.back() == '/') return false;
  size_t start = 0;
  while (start <= rel.size()) {
    size_t end = rel.find('/', start);
    if (end == std::string::npos) end = rel.size();
    std::string part = rel.substr(start, end - start);
    if (part.empty() || part.front() == '.' || part.find('\0') != std::string::npos) return false;
    start = end + 1;
  }
  return true;
}

void check_no_follow(const fs::path& ws, const std::string& rel, bool dir) {
  std::string prefix;
  size_t start = 0;
  while (start < rel.size()) {
    size_t end = rel.find('/', start);
    bool last = end == std::string::npos;
    if (last) end = rel.size();
    prefix = rel.substr(0, end);
    struct stat st {};
    if (::lstat((ws / prefix).c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) return;  // the rest does not exist yet
      throw Error("cannot inspect " + (ws / prefix).string() + ": " + std::strerror(errno), ExitCode::unsafe_path);
    }
    bool want_dir = !last || dir;
    if (want_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) refuse(ws, prefix, st.st_mode, want_dir);
    start = end + 1;
  }
}

void check_workspace_layout(const fs::path& ws) {
  for (const char* d : {".kgo", ".kgo/txn", "memory", "plans", "profiles", "rejected"}) check_no_follow(ws, d, true);
  for (const char* f : {".kgo/lock", ".kgo/journal.json", "README.md", "kgo.json", "specs.json", "roofline.json",
                        "baseline_report.md", "benchmark.md", "env_check.md", ".gitignore"}) {
    check_no_follow(ws, f);
  }
  struct stat st {};
  if (::lstat((ws / ".git").c_str(), &st) == 0 && S_ISLNK(st.st_mode)) refuse(ws, ".git", st.st_mode, true);
  for (const char* d : {"memory", "plans", "profiles", ".kgo/txn"}) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(ws / d, ec)) {
      if (e.is_symlink(ec)) {
        struct stat s {};
        ::lstat(e.path().c_str(), &s);
        refuse(ws, std::string(d) + "/" + e.path().filename().string(), s.st_mode, false);
      }
    }
  }
}

}  // namespace kgo::core
