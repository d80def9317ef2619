#include "harness/daemon.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/harness_protocol.hpp"
#include "harness/client.hpp"

extern char** environ;

namespace kgo::harness {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// Set while a PrivateHarness lives: its folder replaces the user's socket folder.
std::optional<fs::path>& private_dir_override() {
  static std::optional<fs::path> dir;
  return dir;
}

fs::path socket_dir_path() {
  if (private_dir_override()) return *private_dir_override();
  const char* xdg = std::getenv("XDG_RUNTIME_DIR");
  return xdg && *xdg ? fs::path(xdg) / "kgo" : fs::path(fmt::format("/tmp/kgo-{}", ::getuid()));
}

bool private_dir(const fs::path& dir) {
  struct stat st {};
  return ::lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::getuid() && (st.st_mode & 077) == 0;
}

fs::path socket_dir() {
  fs::path dir = socket_dir_path();
  ::mkdir(dir.c_str(), 0700);
  if (!private_dir(dir)) {
    throw Error(fmt::format("{} is not a private folder of this user (mode 0700, owned by uid {}); remove it "
                            "or set XDG_RUNTIME_DIR",
                            dir.string(), ::getuid()),
                ExitCode::harness_error);
  }
  return dir;
}

fs::path pid_file(const fs::path& socket) { return fs::path(socket).replace_extension(".pid"); }

// The daemon's key, the first line of every request: a kernel's cell can connect to the socket (that takes no
// read right) but cannot read this file.
fs::path key_file(const fs::path& socket) { return fs::path(socket).replace_extension(".key"); }

// Removes what a daemon that is gone leaves behind: its socket, key and pid files.
void forget(const fs::path& socket) {
  std::error_code ec;
  fs::remove(socket, ec);
  fs::remove(key_file(socket), ec);
  fs::remove(pid_file(socket), ec);
}

int connect_to(const fs::path& socket) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket.native().size() >= sizeof addr.sun_path) return -1;
  std::memcpy(addr.sun_path, socket.c_str(), socket.native().size() + 1);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// The daemon serves one connection at a time, so a busy one answers a ping only when it is done.
DaemonReply ping(const fs::path& socket) { return daemon_call(socket, R"({"command": "ping"})" "\n", 2s); }

std::string socket_name(const PythonInterpreter& py) {
  const char* cvd = std::getenv("CUDA_VISIBLE_DEVICES");
  std::error_code ec;
  fs::path python = fs::weakly_canonical(py.resolved, ec);  // one daemon for every symlink to it
  if (ec) python = py.resolved;
  // Under Slurm every task may see its GPU as device 0: the node's GPU numbers tell them apart. The cell policy
  // is the daemon's own environment, so a daemon serves only callers that asked for the same one.
  std::string key = python.string() + "\n" + harness_entry().string() + "\n" + (cvd ? cvd : "<unset>");
  for (const char* name : {"SLURM_STEP_GPUS", "SLURM_JOB_GPUS", "KGO_CELL"}) {
    if (const char* v = std::getenv(name)) key += fmt::format("\n{}={}", name, v);
  }
  key = core::sha256_hex(key);
  return "harness-" + key.substr(0, 16) + ".sock";
}

}  // namespace

void kill_daemon(const fs::path& socket) {
  auto text = core::try_read_file(pid_file(socket));
  long pid = text ? std::strtol(text->c_str(), nullptr, 10) : 0;
  if (pid > 1) ::kill(static_cast<pid_t>(-pid), SIGKILL);  // it leads its own session and group
  forget(socket);
}

std::optional<fs::path> find_daemon_socket(const PythonInterpreter& py) {
  fs::path dir = socket_dir_path();
  if (!private_dir(dir)) return std::nullopt;  // never talk to a socket others could have placed
  fs::path socket = dir / socket_name(py);
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(socket, ec))) return std::nullopt;
  return socket;
}

fs::path daemon_socket(const PythonInterpreter& py) {
  fs::path socket = socket_dir() / socket_name(py);
  if (socket.native().size() >= sizeof(sockaddr_un{}.sun_path)) {
    throw Error("the warm harness's socket path " + socket.string() + " is too long for a Unix socket; set "
                "XDG_RUNTIME_DIR to a shorter folder",
                ExitCode::harness_error);
  }
  return socket;
}

DaemonReply daemon_call(const fs::path& socket, const std::string& line, std::chrono::milliseconds timeout) {
  DaemonReply r;
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(socket, ec))) return r;
  int fd = connect_to(socket);
  if (fd < 0) {
    if (errno == ECONNREFUSED) forget(socket);  // nobody listens: a daemon that died without cleaning up
    return r;
  }
  auto key = core::try_read_file(key_file(socket));
  if (!key || key->empty() || key->back() != '\n') {  // not written yet, or not this user's daemon
    ::close(fd);
    return r;
  }
  const std::string out = *key + line;
  const auto deadline = Clock::now() + timeout;
  size_t sent = 0;
  while (sent < out.size()) {
    ssize_t n = ::send(fd, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) {
      ::close(fd);
      r.kind = DaemonReply::Kind::broken;
      return r;
    }
    sent += static_cast<size_t>(n);
  }
  std::string in;
  char buf[1 << 16];
  while (in.empty() || in.back() != '\n') {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      ::close(fd);
      r.kind = DaemonReply::Kind::timed_out;
      return r;
    }
    pollfd p{fd, POLLIN, 0};
    int rc = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) continue;
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    in.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  if (in.empty() || in.back() != '\n') {
    r.kind = DaemonReply::Kind::broken;
    return r;
  }
  r.kind = DaemonReply::Kind::answered;
  r.line = std::move(in);
  return r;
}

DaemonStatus daemon_status(const PythonInterpreter& py) {
  DaemonStatus s;
  s.socket = daemon_socket(py);
  s.log = fs::path(s.socket).replace_extension(".log");
  DaemonReply r = ping(s.socket);
  if (r.kind == DaemonReply::Kind::answered) {
    s.running = true;
    s.info = nlohmann::json::parse(r.line, nullptr, false);
  } else if (r.kind == DaemonReply::Kind::timed_out) {
    s.running = s.busy = true;
  }
  return s;
}

DaemonStatus start_daemon(const PythonInterpreter& py, double idle_s, const std::string& device, bool warm_up) {
  DaemonStatus s = daemon_status(py);
  if (!s.running) {
    std::string idle = fmt::format("{}", idle_s);
    std::vector<std::string> args = {py.resolved.string(), "-I", harness_entry().string(), "serve", "--socket",
                                     s.socket.string(), "--idle", idle};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, s.log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);  // outlives this kgo, its own process group
    pid_t pid = 0;
    int rc = ::posix_spawn(&pid, argv[0], &fa, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
      throw Error(fmt::format("cannot start {}: {}", args[0], std::strerror(rc)), ExitCode::harness_error);
    }
    core::write_file_atomic(pid_file(s.socket), std::to_string(pid) + "\n");
    const auto deadline = Clock::now() + 60s;
    DaemonReply r;
    while ((r = ping(s.socket)).kind != DaemonReply::Kind::answered) {
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid || Clock::now() > deadline) {
        kill_daemon(s.socket);
        std::string log = core::try_read_file(s.log).value_or("");
        throw Error(fmt::format("the warm harness did not start; the end of {}:\n{}", s.log.string(),
                                log.size() > 2000 ? log.substr(log.size() - 2000) : log),
                    ExitCode::harness_error);
      }
      std::this_thread::sleep_for(20ms);
    }
    s.info = nlohmann::json::parse(r.line, nullptr, false);
    s.running = true;
    s.started = true;
  }
  if (s.busy || !warm_up) return s;
  nlohmann::json env = {{"protocol", protocol::kVersion}, {"command", "env"}, {"device", device}, {"tools", cuda_tools()}};
  DaemonReply r = daemon_call(s.socket, env.dump() + "\n", 300s);
  if (r.kind == DaemonReply::Kind::answered) s.warmup = nlohmann::json::parse(r.line, nullptr, false);
  if (DaemonReply p = ping(s.socket); p.kind == DaemonReply::Kind::answered) {
    s.info = nlohmann::json::parse(p.line, nullptr, false);
  }
  return s;
}

bool stop_daemon(const PythonInterpreter& py, std::chrono::milliseconds grace) {
  fs::path socket = daemon_socket(py);
  DaemonReply r = daemon_call(socket, R"({"command": "shutdown"})" "\n", grace);
  if (r.kind == DaemonReply::Kind::absent) return false;
  if (r.kind == DaemonReply::Kind::timed_out) kill_daemon(socket);  // busy beyond the grace time
  std::error_code ec;
  const auto deadline = Clock::now() + grace;
  while (fs::exists(fs::symlink_status(socket, ec)) && Clock::now() < deadline) std::this_thread::sleep_for(20ms);
  if (fs::exists(fs::symlink_status(socket, ec))) kill_daemon(socket);
  fs::remove(pid_file(socket), ec);
  return true;
}

std::optional<fs::path> private_harness_socket(const PythonInterpreter& py) {
  if (!private_dir_override()) return std::nullopt;
  return find_daemon_socket(py);
}

PrivateHarness::PrivateHarness(const PythonInterpreter& py, const std::string& device) : py_(py) {
  const char* use = std::getenv("KGO_HARNESS_DAEMON");
  if (!(use && std::string(use) == "0") && find_daemon_socket(py)) return;  // the user's warm one serves
  std::string tmpl = (fs::temp_directory_path() / "kgo-ops-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) return;  // no private folder: every variant starts its own process
  dir_ = tmpl;
  private_dir_override() = dir_;
  try {
    start_daemon(py, 300, device);
  } catch (const Error&) {
    // Not fatal: the checks then run in fresh processes, and report their own errors.
    private_dir_override().reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
    dir_.clear();
  }
}

PrivateHarness::~PrivateHarness() {
  if (dir_.empty()) return;
  try {
    stop_daemon(py_, 2s);
  } catch (...) {
  }
  private_dir_override().reset();
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

}  // namespace kgo::harness
