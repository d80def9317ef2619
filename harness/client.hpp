#pragma once
// Runs one request through the Python harness (tools/kgo_harness <command>, JSON on
// stdin, JSON on stdout; see tools/kgo_harness/PROTOCOL.md) under an outer timeout. Whatever the
// child does, the caller gets a result with a verdict: a harness killed by a signal becomes
// CRASH, one that outlives the outer timeout becomes TIMEOUT_FAIL. Only a harness that exits
// without a result, or rejects the request, throws Error(harness_error). When a warm harness runs
// for this interpreter (`kgo harness start`, or one kgo started: harness/warm_judge.hpp) the request
// goes to it instead; KGO_HARNESS_DAEMON=0 keeps every call in a fresh process.
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/python.hpp"

namespace kgo::harness {

struct HarnessCall {
  std::string command;                  // check, bench, env, run-once, catalog
  nlohmann::json request;               // "protocol" and "command" are filled in
  PythonInterpreter python;
  std::chrono::milliseconds timeout{0}; // outer limit; 0: request's total_timeout_s + margin
  std::filesystem::path cwd;            // empty: inherit
  bool progress = false;                // forward the harness's progress lines to stderr live
};

struct HarnessOutcome {
  nlohmann::json result;      // the harness's result, or one kgo synthesised (see synthesized)
  std::string verdict;        // one of protocol::kVerdicts
  bool synthesized = false;   // kgo wrote the result: the harness was killed or timed out
  std::string stderr_tail;    // the last lines the harness wrote to stderr
  double seconds = 0;
};

// Seconds kgo waits beyond the request's own total timeout before killing the harness.
constexpr double k_outer_margin_s = 30;

HarnessOutcome run_harness(const HarnessCall& call);

// The last `max_lines` lines of `text` (exposed for tests).
// Whether `v` is one of the harness's verdicts (schemas/harness/result.schema.json: protocol::kVerdicts).
bool is_verdict(const std::string& v);

// The paths of nvcc and ncu (core::find_tool, resolved once per process) that every request carries as
// "tools": the harness searches for no CUDA program itself.
const nlohmann::json& cuda_tools();

std::string tail_lines(const std::string& text, size_t max_lines);

}  // namespace kgo::harness
