#pragma once
// The problem file of a workspace whose kernel format carries setup() (seed, fmh66): the file whose setup()
// the judge runs to make every candidate's inputs (request field `problem`). Never the candidate's file.
#include <filesystem>
#include <optional>

#include "core/workspace.hpp"

namespace kgo::harness {

// kgo.json's `problem` (problem.py, stored at init); for a workspace made before kgo stored one, the init
// commit's kernel when it carries setup(), written to .kgo/problem-baseline.py; nullopt when the format has
// no setup(). Throws Error(kernel_missing) when kgo.json names a problem file that is missing.
std::optional<std::filesystem::path> workspace_problem(const std::filesystem::path& ws,
                                                       const core::WorkspaceConfig& cfg);

}  // namespace kgo::harness
