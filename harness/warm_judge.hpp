#pragma once
// The shared warm judge: when a harness call goes to a warm harness (harness/daemon.hpp), and when kgo starts
// one itself. $KGO_HARNESS_DAEMON: 0 never; 1 only one that runs (`kgo harness start`); auto also starts one
// on first use, which stops after $KGO_HARNESS_IDLE_S seconds without a request (default 600). Unset: auto
// for kernel work on the GPU, where a cold start costs seconds, and 1 on the CPU.
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/python.hpp"

namespace kgo::harness {

enum class DaemonUse { never, running, start };

// The policy for a `command` (check, bench, ...) on `device` (cuda, cpu); a bad value is a usage error.
DaemonUse daemon_use(const std::string& command, const std::string& device);

// The socket of the warm harness for `py`, started now if none runs (concurrent callers start one: a lock
// file beside the socket); nullopt where it cannot start (the call then runs in a fresh process).
std::optional<std::filesystem::path> ensure_daemon(const PythonInterpreter& py, const std::string& device);

// A private folder of warm judges for one run of many calls (a sweep's local worker: one judge, shared by
// the jobs of its GPU or CPU slot): `env()` points the calls at it; the destructor stops every judge in it.
class WarmScope {
 public:
  WarmScope();
  ~WarmScope();
  WarmScope(const WarmScope&) = delete;
  WarmScope& operator=(const WarmScope&) = delete;
  // {XDG_RUNTIME_DIR, KGO_HARNESS_DAEMON=auto} for the calls, or nothing where they are off (=0).
  std::vector<std::pair<std::string, std::string>> env() const;

 private:
  std::filesystem::path dir_;
};

}  // namespace kgo::harness
