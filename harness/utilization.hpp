#pragma once
// Bench results against the workspace's roofline: per-size bytes/FLOPs from the op catalog for
// the harness request, and the % of peak and of target computed by roofline::run_roofline from
// the registered specs (never a number of kgo's own).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/bench.hpp"

namespace kgo::harness {

// The request's "work" list ({shape, bytes, flops} per shape) from the roofline op catalog, or
// an empty array when `op` is not a catalog op or a shape does not fit it.
nlohmann::json catalog_work(const std::optional<std::string>& op, const std::string& dtype,
                            const std::vector<std::vector<long long>>& shapes);

// A bench that records the workspace's performance (kgo bench, baseline, the accept path): run_bench with the
// catalog's work and the workspace's ceilings for the target's sizes (the physical floor max(bytes / bandwidth,
// FLOPs / peak) from the registered HBM bandwidth and compute peak, each with its citation), so each of them is held
// to the same floor; with no registered bandwidth run_bench warns that there is none.
BenchReport run_workspace_bench(const std::filesystem::path& workspace, const Target& target,
                                const BenchSettings& settings);

// The op, dtype, fraction (and custom expressions) of `<ws>/roofline.json`, falling back to the
// target's op; then the roofline of every size with a measured median. Unavailable (why_not
// says what to run) when the workspace has no registered specs or no op to count.
Utilization utilization_for(const std::filesystem::path& workspace, const BenchReport& report);

}  // namespace kgo::harness
