#pragma once
// `kgo next`: the next step of the workflow from a workspace's files, with the exact command and
// MCP tool. init -> specs -> roofline -> baseline -> [plan -> edit -> propose]* -> a terminal state:
// done (Stop Conditions met), correct_only (nothing can be timed on this machine), budget_spent (kgo.json's
// max_iterations decided, not met) or unreachable (not met, no launch-latency floor registered). repair: a
// decided record was edited.
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace kgo::iterate {

struct NextStep {
  std::string state;    // init, specs, roofline, baseline, plan, edit, repair, done, correct_only, budget_spent,
                        // unreachable
  std::string command;  // the exact CLI command
  std::string tool;     // the MCP tool doing the same ("" when none does)
  std::string why;      // what in the workspace led here
  std::optional<std::string> version;  // the iteration in progress, when any
};

// Reads the workspace (nullopt: none found) and names the step; never writes.
NextStep next_step(const std::optional<std::filesystem::path>& workspace);

// Whether the agent may stop: done, correct_only, budget_spent, unreachable.
bool terminal(const NextStep& s);

// The workflow in one line (the order of the states).
const char* workflow_line();

nlohmann::json to_json(const NextStep& s);

}  // namespace kgo::iterate
