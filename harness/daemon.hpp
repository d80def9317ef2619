#pragma once
// The warm harness (`kgo harness start`): tools/kgo_harness serving on a Unix socket, so that check,
// bench, baseline, env and ops skip Python's and torch's start-up and reuse compiled kernels.
// One daemon per interpreter (its path as kgo resolves it: --python, $KGO_PYTHON or python3 in PATH,
// symlinks followed), harness script, GPU (CUDA_VISIBLE_DEVICES, Slurm's GPU numbers) and cell policy
// ($KGO_CELL); it exits after an idle time. harness/warm_judge.hpp says when kgo starts one itself.
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/python.hpp"

namespace kgo::harness {

// The running daemon's socket for `py`, if there is one in a private folder (no side effects; for
// callers that only want to use a daemon that is already there).
std::optional<std::filesystem::path> find_daemon_socket(const PythonInterpreter& py);

// The socket path for `py` under $XDG_RUNTIME_DIR/kgo, else /tmp/kgo-<uid> (created 0700; a folder
// owned by another user or open to others is refused with harness_error).
std::filesystem::path daemon_socket(const PythonInterpreter& py);

struct DaemonReply {
  enum class Kind { absent, answered, timed_out, broken };
  Kind kind = Kind::absent;   // absent: nothing listens (a stale socket file is removed)
  std::string line;           // the answer, when answered
};

// Sends one request line to the daemon at `socket` and waits at most `timeout` for its answer.
// A daemon that does not answer in time is left alone (it may be busy with another request).
DaemonReply daemon_call(const std::filesystem::path& socket, const std::string& line,
                        std::chrono::milliseconds timeout);

// Kills the daemon at `socket` with its process group and removes its socket and pid files.
void kill_daemon(const std::filesystem::path& socket);

struct DaemonStatus {
  bool running = false;
  bool busy = false;           // running, but serving another request (no answer to a ping in time)
  bool started = false;        // start_daemon launched it (it was not already running)
  std::filesystem::path socket, log;
  nlohmann::json info;         // the daemon's ping answer: pid, served, uptime_s, worker, ...
  nlohmann::json warmup;       // start_daemon: the warm-up env result
};

DaemonStatus daemon_status(const PythonInterpreter& py);
// Starts the daemon unless one runs, then, with `warm_up`, warms its worker on `device` (an env request;
// skipped when the running one is busy).
DaemonStatus start_daemon(const PythonInterpreter& py, double idle_s, const std::string& device,
                          bool warm_up = true);
// Asks the daemon to exit; kills it when it does not within `grace`. Returns whether one ran.
bool stop_daemon(const PythonInterpreter& py, std::chrono::milliseconds grace);

// A warm harness private to this process for its lifetime (`kgo ops` checks all its variants through
// one worker): unless the user's daemon for `py` already runs (and KGO_HARNESS_DAEMON is not 0), starts
// one in a fresh 0700 folder that every harness call of this process then uses; stops it and removes
// the folder on destruction.
class PrivateHarness {
 public:
  PrivateHarness(const PythonInterpreter& py, const std::string& device);
  ~PrivateHarness();
  PrivateHarness(const PrivateHarness&) = delete;
  PrivateHarness& operator=(const PrivateHarness&) = delete;

 private:
  PythonInterpreter py_;
  std::filesystem::path dir_;  // empty when the user's daemon is used, or none could start
};

// The private harness's socket for `py` while one lives in this process.
std::optional<std::filesystem::path> private_harness_socket(const PythonInterpreter& py);

}  // namespace kgo::harness
