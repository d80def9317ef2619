#pragma once
// An exclusive advisory lock on a workspace (flock on `<ws>/.kgo/lock`), released on
// destruction or process death. A second kgo waits up to `wait`, then fails with ExitCode::locked.
#include <chrono>
#include <filesystem>

namespace kgo::core {

class WorkspaceLock {
 public:
  WorkspaceLock(const std::filesystem::path& workspace,
                std::chrono::milliseconds wait = std::chrono::seconds(10));
  ~WorkspaceLock();
  WorkspaceLock(const WorkspaceLock&) = delete;
  WorkspaceLock& operator=(const WorkspaceLock&) = delete;

 private:
  int m_fd = -1;
};

}  // namespace kgo::core
