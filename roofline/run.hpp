#pragma once
// `kgo roofline` on a workspace: options -> cases -> registry inputs -> analysis; then (without a
// measured time) README Roofline Analysis / Stop Conditions / ISA Optimization Targets and
// roofline.json are rewritten under the workspace lock, atomically, and committed. Runs with a
// measured time (--time-us, --from-memory) only check and write nothing.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "roofline/analysis.hpp"

namespace kgo::core {
struct WorkspaceConfig;
}

namespace kgo::roofline {

struct RooflineOptions {
  std::optional<std::string> op;
  std::vector<std::string> shapes;          // "4096x4096"; default: the workspace's, else the seed's
  std::optional<std::string> dtype;         // default: the workspace's
  std::optional<std::string> flops_expr;
  std::optional<std::string> bytes_expr;
  std::vector<std::string> vars;            // "M=4096"
  std::optional<std::string> peak_metric;
  double fraction = 0.9;
  std::vector<double> time_us;              // one per shape (or one for a single shape)
  std::optional<std::string> from_memory;   // "v3"
  std::optional<long long> grid;
  bool dry_run = false;                     // compute and answer; write and commit nothing
};

struct RooflineRun {
  std::filesystem::path workspace;
  std::string arch;
  Analysis analysis;
  nlohmann::json document;   // roofline.json content
  bool wrote = false;        // README sections and roofline.json were written
  bool up_to_date = false;   // nothing to write: they already hold this analysis
  std::optional<std::string> commit;  // the commit holding them (git workspaces, when they changed)
};

RooflineRun run_roofline(const std::filesystem::path& workspace, const RooflineOptions& options);

// Measured times for `cases` from `<ws>/memory/<version>.json`: performance.latency_us_by_shape
// keyed by shape ("4096x4096"), else performance.latency_us when there is a single case.
// Throws Error(record_error) when the record is missing, malformed, masked or has no latency.
std::vector<std::optional<MeasuredTime>> times_from_memory(const std::filesystem::path& workspace,
                                                           const std::string& version,
                                                           const std::vector<Case>& cases);

// True for a KernelBench workspace (--contract kernelbench, or a kernel file defining class ModelNew): its
// shapes are the problem's named dims, not a catalog op's shape.
bool is_kernelbench(const std::filesystem::path& workspace, const core::WorkspaceConfig& config);

}  // namespace kgo::roofline
