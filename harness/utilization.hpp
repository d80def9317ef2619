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

// The request's "ceilings" for the physical floor of a time max(bytes / bandwidth, FLOPs / peak): the larger
// of the measured and the datasheet HBM bandwidth (bytes_per_s) and compute peak for the op and dtype
// (flops_per_s) registered for the workspace, the measured-else-cited bandwidth for the audit flag, each with
// its citation; flops_note says when no compute peak is registered. Null with no op or no registered ceiling.
nlohmann::json ceilings_for(const std::filesystem::path& workspace, const std::optional<std::string>& op,
                            const std::string& dtype, const std::vector<std::vector<long long>>& shapes);

// The op, dtype, fraction (and custom expressions) of `<ws>/roofline.json`, falling back to the
// target's op; then the roofline of every size with a measured median. Unavailable (why_not
// says what to run) when the workspace has no registered specs or no op to count.
Utilization utilization_for(const std::filesystem::path& workspace, const BenchReport& report);

}  // namespace kgo::harness
