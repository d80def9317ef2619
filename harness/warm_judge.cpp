#include "harness/warm_judge.hpp"

#include <sys/file.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>

#include <fmt/format.h>

#include "core/error.hpp"
#include "harness/daemon.hpp"

namespace kgo::harness {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

double idle_seconds() {
  const char* v = std::getenv("KGO_HARNESS_IDLE_S");
  if (!v || !*v) return 600;
  char* end = nullptr;
  double s = std::strtod(v, &end);
  if (*end != '\0' || s <= 0) {
    throw Error(fmt::format("KGO_HARNESS_IDLE_S='{}' is not a positive number of seconds; unset it or pass e.g. "
                            "KGO_HARNESS_IDLE_S=600", v),
                ExitCode::usage);
  }
  return s;
}

// Holds an exclusive lock on `path` for its lifetime (released when the descriptor closes).
class FileLock {
 public:
  explicit FileLock(const fs::path& path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

}  // namespace

DaemonUse daemon_use(const std::string& command, const std::string& device) {
  const char* v = std::getenv("KGO_HARNESS_DAEMON");
  std::string use = v ? v : "";
  if (use == "0") return DaemonUse::never;
  bool kernel_work = command == "check" || command == "bench" || command == "run-once";
  if (use == "auto") return kernel_work ? DaemonUse::start : DaemonUse::running;
  if (use == "1") return DaemonUse::running;
  if (!use.empty()) {
    throw Error(fmt::format("KGO_HARNESS_DAEMON='{}' is not 0, 1 or auto; unset it to let kgo choose", use),
                ExitCode::usage);
  }
  return kernel_work && device == "cuda" ? DaemonUse::start : DaemonUse::running;
}

std::optional<fs::path> ensure_daemon(const PythonInterpreter& py, const std::string& device) {
  double idle = idle_seconds();
  try {
    fs::path socket = daemon_socket(py);
    FileLock lock(fs::path(socket).replace_extension(".lock"));
    DaemonStatus s = start_daemon(py, idle, device, /*warm_up=*/false);
    if (s.running) return s.socket;
  } catch (const Error&) {
    // A fresh process serves this call and reports its own errors.
  }
  return std::nullopt;
}

WarmScope::WarmScope() {
  const char* v = std::getenv("KGO_HARNESS_DAEMON");
  if (v && std::string(v) == "0") return;
  // Short: a Unix socket path has about 100 bytes.
  std::string tmpl = (fs::temp_directory_path() / "kgo-warm-XXXXXX").string();
  if (::mkdtemp(tmpl.data())) dir_ = tmpl;
}

WarmScope::~WarmScope() {
  if (dir_.empty()) return;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_ / "kgo", ec)) {
    // The warm judges' sockets; a judges' template (judges-*.sock) ends by itself once idle.
    if (e.path().extension() != ".sock" || e.path().filename().string().rfind("harness-", 0) != 0) continue;
    DaemonReply r = daemon_call(e.path(), R"({"command": "shutdown"})" "\n", 5s);
    if (r.kind != DaemonReply::Kind::answered) kill_daemon(e.path());
  }
  fs::remove_all(dir_, ec);
}

std::vector<std::pair<std::string, std::string>> WarmScope::env() const {
  if (dir_.empty()) return {};
  return {{"XDG_RUNTIME_DIR", dir_.string()}, {"KGO_HARNESS_DAEMON", "auto"}};
}

}  // namespace kgo::harness
