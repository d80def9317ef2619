#pragma once
// Iteration plans `plans/v<N>_plan.md`: written from templates/plan.md by `kgo plan new`, checked by
// `kgo plan check` (every section filled, the Search Log in gpu-wiki -> reference project -> web
// order, exactly one action category).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kgo::iterate {

namespace fs = std::filesystem;

// The sections every plan has, in order.
const std::vector<std::string>& plan_sections();

// `plans/v<N>_plan.md`.
fs::path plan_path(const fs::path& workspace, int n);
std::string plan_relpath(int n);

struct PlanNewResult {
  int version = 0;
  fs::path path;
};

// Writes plans/v<N>_plan.md and, when missing, record v<N> (with `description` as its action
// description), both or neither. Default N: the latest record when it is still pending, else the
// next version. Refuses (Error(usage)) to overwrite an existing plan unless `force`.
PlanNewResult new_plan(const fs::path& workspace, std::optional<int> n, bool force,
                       const std::string& description = "");

struct PlanCheck {
  int version = 0;
  fs::path path;
  std::string action_category;        // the one category named, or ""
  std::vector<std::string> problems;  // empty: the plan passes
  bool ok() const { return problems.empty(); }
};

// Checks plan text (pure; exposed for tests). `timed`: something was timed or profiled in the
// workspace, so the Hypothesis needs numbers (iterate/hypothesis.hpp).
PlanCheck check_plan_text(const std::string& text, bool timed = true);

// Checks plans/v<N>_plan.md (default: the highest-numbered plan). Error(plan_invalid) when the
// plan file does not exist; problems are returned, not thrown.
PlanCheck check_plan(const fs::path& workspace, std::optional<int> n);

}  // namespace kgo::iterate
