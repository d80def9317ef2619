#pragma once
// Runs a child process from an argument vector (never a shell), with a timeout.
// The child leads its own process group; on timeout the whole group is killed.
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kgo::core {

struct ProcessOptions {
  std::filesystem::path cwd;                         // empty: inherit
  std::map<std::string, std::string> env;           // added to / overriding the parent's env
  std::optional<std::string> stdin_data;             // written to the child's stdin, then closed
  std::chrono::milliseconds timeout{0};              // 0: no timeout
  // Called with each chunk of stderr as it arrives (it is still captured in `err`); lets a
  // caller forward a long-running child's progress lines live.
  std::function<void(std::string_view)> on_stderr;
};

struct ProcessResult {
  int exit_code = -1;      // valid when !signaled && !timed_out
  bool signaled = false;   // terminated by a signal
  int signal = 0;
  bool timed_out = false;  // killed by us after the timeout
  std::string out;
  std::string err;
  double seconds = 0;
  bool ok() const { return !signaled && !timed_out && exit_code == 0; }
};

// Runs argv[0] (searched in PATH) with `argv`. Throws Error only when the program cannot be
// started at all (missing executable); every outcome of a started child is a ProcessResult.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& opts = {});

// Returns the absolute path of `program` found in PATH, or nullopt.
std::optional<std::filesystem::path> find_in_path(const std::string& program);

}  // namespace kgo::core
