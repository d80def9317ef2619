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

namespace {

// The child's argv and environment (ours with opts.env over it), built before fork: only
// async-signal-safe calls may follow it.
struct ExecImage {
  std::string exe, cwd;
  std::vector<std::string> argv_strings, env_strings;
  std::vector<char*> args, envp;

  ExecImage(const std::filesystem::path& program, const std::vector<std::string>& argv, const ProcessOptions& opts)
      : exe(program.string()), cwd(opts.cwd.string()), argv_strings(argv) {
    std::map<std::string, std::string> env_map;
    for (char** e = environ; *e; ++e) {
      std::string kv = *e;
      auto eq = kv.find('=');
      env_map[kv.substr(0, eq)] = eq == std::string::npos ? "" : kv.substr(eq + 1);
    }
    for (const auto& [k, v] : opts.env) env_map[k] = v;
    for (const auto& [k, v] : env_map) env_strings.push_back(k + "=" + v);
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    for (auto& s : argv_strings) args.push_back(s.data());
    args.push_back(nullptr);
  }
  ExecImage(const ExecImage&) = delete;
  ExecImage& operator=(const ExecImage&) = delete;
};

// Forks the child in its own process group with the pipes as its stdin/stdout/stderr; returns its pid.
// `in`, `out`, `err` are pipe pairs; the parent keeps in[1], out[0] and err[0].
pid_t spawn(const ExecImage& image, const int in[2], const int out[2], const int err[2]) {
  pid_t pid = ::fork();
  if (pid < 0) {
    throw Error(std::string("fork failed: ") + std::strerror(errno), ExitCode::internal);
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    if (!image.cwd.empty() && ::chdir(image.cwd.c_str()) != 0) {
      ::_exit(127);
    }
    ::execve(image.exe.c_str(), image.args.data(), image.envp.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  return pid;
}

// The parent's ends of the child's pipes; -1 once closed.
struct ChildIo {
  int in = -1, out = -1, err = -1;
  std::string input;
  size_t written = 0;
};

// Writes the next piece of the input; closes stdin once all is written (or the child stopped reading).
void feed(ChildIo& io) {
  ssize_t w = ::write(io.in, io.input.data() + io.written, io.input.size() - io.written);
  if (w > 0) io.written += static_cast<size_t>(w);
  if (w < 0 && errno != EAGAIN) io.written = io.input.size();
  if (io.written >= io.input.size()) {
    ::close(io.in);
    io.in = -1;
  }
}

// Feeds stdin and collects stdout and stderr until both close or the deadline passes (timed_out).
void pump(ChildIo& io, const ProcessOptions& opts, std::chrono::steady_clock::time_point deadline,
          ProcessResult& result) {
  char buf[65536];
  while (io.out >= 0 || io.err >= 0) {
    pollfd fds[3];
    int n = 0;
    if (io.out >= 0) fds[n++] = {io.out, POLLIN, 0};
    if (io.err >= 0) fds[n++] = {io.err, POLLIN, 0};
    if (io.in >= 0) fds[n++] = {io.in, POLLOUT, 0};
    int wait_ms = -1;
    if (opts.timeout.count() > 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        result.timed_out = true;
        return;
      }
      wait_ms = static_cast<int>(left.count());
    }
    int rc = ::poll(fds, n, wait_ms);
    if (rc < 0 && errno == EINTR) continue;
    if (rc == 0) continue;  // loop re-checks the deadline
    for (int i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == io.in) {
        feed(io);
        continue;
      }
      ssize_t r = ::read(fds[i].fd, buf, sizeof buf);
      if (r > 0) {
        (fds[i].fd == io.out ? result.out : result.err).append(buf, static_cast<size_t>(r));
        if (fds[i].fd == io.err && opts.on_stderr) opts.on_stderr(std::string_view(buf, static_cast<size_t>(r)));
      } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
        ::close(fds[i].fd);
        (fds[i].fd == io.out ? io.out : io.err) = -1;
      }
    }
  }
}

// Kills the process group (on a timeout, and in any case for stray grandchildren), waits for the
// child and fills in how it ended.
void reap(pid_t pid, ChildIo& io, ProcessResult& result) {
  if (result.timed_out) {
    ::kill(-pid, SIGKILL);
  }
  for (int fd : {io.in, io.out, io.err}) {
    if (fd >= 0) ::close(fd);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!result.timed_out) {
    // Stray grandchildren holding the group must not outlive the call either.
    ::kill(-pid, SIGKILL);
  }
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signaled = true;
    result.signal = WTERMSIG(status);
  }
}

}  // namespace

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
  ExecImage image(*exe, argv, opts);
  auto start = std::chrono::steady_clock::now();
  pid_t pid = spawn(image, in_pipe, out_pipe, err_pipe);

  ProcessResult result;
  ChildIo io{in_pipe[1], out_pipe[0], err_pipe[0], opts.stdin_data.value_or(""), 0};
  if (io.input.empty()) {
    ::close(io.in);
    io.in = -1;
  } else {
    set_nonblock(io.in);
  }
  set_nonblock(io.out);
  set_nonblock(io.err);
  pump(io, opts, start + opts.timeout, result);
  reap(pid, io, result);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace kgo::core
