#include "core/lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "core/error.hpp"

namespace kgo::core {

namespace {

std::filesystem::path workspace_lock_file(const std::filesystem::path& workspace) {
  std::error_code ec;
  std::filesystem::create_directories(workspace / ".kgo", ec);
  return workspace / ".kgo" / "lock";
}

}  // namespace

FileLock::FileLock(const std::filesystem::path& file, const std::string& what, std::chrono::milliseconds wait) {
  m_fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (m_fd < 0) {
    throw Error("cannot open the lock " + file.string() + ": " + std::strerror(errno), ExitCode::not_writable);
  }
  auto deadline = std::chrono::steady_clock::now() + wait;
  while (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      ::close(m_fd);
      m_fd = -1;
      throw Error(what + " is locked by another kgo process; wait for it to finish and retry", ExitCode::locked);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

FileLock::~FileLock() {
  if (m_fd >= 0) {
    ::flock(m_fd, LOCK_UN);
    ::close(m_fd);
  }
}

WorkspaceLock::WorkspaceLock(const std::filesystem::path& workspace, std::chrono::milliseconds wait)
    : m_lock(workspace_lock_file(workspace), "workspace " + workspace.string(), wait) {}

}  // namespace kgo::core
