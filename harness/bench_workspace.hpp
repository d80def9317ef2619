#pragma once
// `kgo bench` on a workspace: its target (the workspace's own sizes when none are given), the GPU it
// needs, the timing with the op catalog's work and the registered ceilings, benchmark.md and the record.
#include <filesystem>

#include "harness/bench.hpp"
#include "harness/target.hpp"

namespace kgo::harness {

struct BenchWorkspaceOptions {
  TargetOptions target;   // --size goes into target.shapes
  BenchSettings settings;
  bool record = true;     // false: --no-record
};

// Throws Error(usage) naming a setting bench_workspace cannot run with (check_bench_settings, --graph,
// the timeouts); callers check before they resolve the workspace so that a usage error comes first.
void check_bench_workspace_settings(const BenchSettings& settings);

// Throws Error(usage) for bad settings, Error(no_gpu) when --device auto finds no GPU, and the
// reference's error when it differs from its committed version. The report's report_path is
// benchmark.md; its record_note says why nothing was recorded, when so.
BenchReport bench_workspace(const std::filesystem::path& workspace, const BenchWorkspaceOptions& options);

}  // namespace kgo::harness
