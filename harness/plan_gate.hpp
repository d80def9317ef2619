#pragma once
// The whole plan check: iterate::check_plan (sections, one action category, the Hypothesis and its
// evidence read back) plus the audit of the plan's text (specs::audit_file), so that a plan with an
// uncited or unregistered hardware number is refused before any commit archives it.
#include <filesystem>
#include <optional>

#include "iterate/plan.hpp"

namespace kgo::harness {

iterate::PlanCheck check_plan_cited(const std::filesystem::path& workspace, std::optional<int> n);

// Throws Error(plan_invalid) naming the first problem (and how many more) when plan n does not pass.
void require_plan(const std::filesystem::path& workspace, int n);

}  // namespace kgo::harness
