#include "core/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"

extern char** environ;

namespace kgo::core {

namespace {

void set_nonblock(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

}  // namespace

std::optional<std::filesystem::path> find_in_path(const std::string& program) {
  if (program.find('/') != std::string::npos) {
    if (::access(program.c_str(), X_OK) == 0) {
      return std::filesystem::path(program);
    }
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find(':', start);
    std::string dir = p.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!dir.empty()) {
      std::filesystem::path candidate = std::filesystem::path(dir) / program;
      if (::access(candidate.c_str(), X_OK) == 0) {
        return candidate;
      }
    }
    if (end == std::string::npos) {
      break;
    }
    start = end + 1;
  }
  return std::nullopt;
}

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& opts) {
  if (argv.empty()) {
    throw Error("run_process: empty argument vector", ExitCode::internal);
  }
  auto exe = find_in_path(argv[0]);
  if (!exe) {
    throw Error("cannot run '" + argv[0] + "': not found in PATH", ExitCode::failure);
  }
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) || ::pipe2(out_pipe, O_CLOEXEC) || ::pipe2(err_pipe, O_CLOEXEC)) {
    throw Error(std::string("pipe failed: ") + std::strerror(errno), ExitCode::internal);
  }
  // Build env and argv before fork: only async-signal-safe calls after it.
  std::map<std::string, std::string> env_map;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    env_map[kv.substr(0, eq)] = eq == std::string::npos ? "" : kv.substr(eq + 1);
  }
  for (const auto& [k, v] : opts.env) {
    env_map[k] = v;
  }
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : env_map) {
    env_strings.push_back(k + "=" + v);
  }
  std::vector<char*> envp, args;
  for (auto& s : env_strings) {
    envp.push_back(s.data());
  }
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& s : argv_copy) {
    args.push_back(s.data());
  }
  args.push_back(nullptr);
  std::string exe_str = exe->string();
  std::string cwd = opts.cwd.string();

  auto start = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid < 0) {
    throw Error(std::string("fork failed: ") + std::strerror(errno), ExitCode::internal);
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(in_pipe[0], 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) {
      ::_exit(127);
    }
    ::execve(exe_str.c_str(), args.data(), envp.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);

  ProcessResult result;
  std::string input = opts.stdin_data.value_or("");
  size_t written = 0;
  int in_fd = in_pipe[1];
  if (input.empty()) {
    ::close(in_fd);
    in_fd = -1;
  } else {
    set_nonblock(in_fd);
  }
  set_nonblock(out_pipe[0]);
  set_nonblock(err_pipe[0]);
  int out_fd = out_pipe[0], err_fd = err_pipe[0];
  auto deadline = start + opts.timeout;
  char buf[65536];
  while (out_fd >= 0 || err_fd >= 0) {
    pollfd fds[3];
    int n = 0;
    if (out_fd >= 0) fds[n++] = {out_fd, POLLIN, 0};
    if (err_fd >= 0) fds[n++] = {err_fd, POLLIN, 0};
    if (in_fd >= 0) fds[n++] = {in_fd, POLLOUT, 0};
    int wait_ms = -1;
    if (opts.timeout.count() > 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        result.timed_out = true;
        break;
      }
      wait_ms = static_cast<int>(left.count());
    }
    int rc = ::poll(fds, n, wait_ms);
    if (rc < 0 && errno == EINTR) continue;
    if (rc == 0) continue;  // loop re-checks the deadline
    for (int i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == in_fd) {
        ssize_t w = ::write(in_fd, input.data() + written, input.size() - written);
        if (w > 0) written += static_cast<size_t>(w);
        if (w < 0 && errno != EAGAIN) written = input.size();
        if (written >= input.size()) {
          ::close(in_fd);
          in_fd = -1;
        }
        continue;
      }
      ssize_t r = ::read(fds[i].fd, buf, sizeof buf);
      if (r > 0) {
        (fds[i].fd == out_fd ? result.out : result.err).append(buf, static_cast<size_t>(r));
        if (fds[i].fd == err_fd && opts.on_stderr) opts.on_stderr(std::string_view(buf, static_cast<size_t>(r)));
      } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
        ::close(fds[i].fd);
        (fds[i].fd == out_fd ? out_fd : err_fd) = -1;
      }
    }
  }
  if (result.timed_out) {
    ::kill(-pid, SIGKILL);
  }
  for (int fd : {in_fd, out_fd, err_fd}) {
    if (fd >= 0) ::close(fd);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!result.timed_out) {
    // Stray grandchildren holding the group must not outlive the call either.
    ::kill(-pid, SIGKILL);
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signaled = true;
    result.signal = WTERMSIG(status);
  }
  return result;
}

}  // namespace kgo::core
