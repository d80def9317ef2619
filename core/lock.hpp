#pragma once
// An exclusive advisory lock on a workspace (flock on `<ws>/.kgo/lock`), released on
// destruction or process death. A second kgo waits up to `wait`, then fails with ExitCode::locked.
#include <chrono>
#include <filesystem>
#include <string>

namespace kgo::core {

// An exclusive flock on `file` (created if absent, never through a symlink); `what` names the locked
// thing in the ExitCode::locked error raised after waiting `wait`.
class FileLock {
 public:
  FileLock(const std::filesystem::path& file, const std::string& what, std::chrono::milliseconds wait);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int m_fd = -1;
};

class WorkspaceLock {
 public:
  WorkspaceLock(const std::filesystem::path& workspace,
                std::chrono::milliseconds wait = std::chrono::seconds(10));

 private:
  FileLock m_lock;
};

}  // namespace kgo::core
