#pragma once
// `kgo baseline`: Stage 1 in one command. Check, bench (on a GPU) and utilization against the
// roofline on the workspace kernel; baseline_report.md and memory/v0.json; then, only when every
// step passed, the commit `V0: baseline kernel` (and the bookkeeping commit that stores its id in
// v0), as one crash-safe transaction under the workspace lock.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/bench.hpp"
#include "harness/check.hpp"

namespace kgo::harness {

struct BaselineOptions {
  TargetOptions target;             // target.shapes: check shapes (default: the workspace's)
  std::vector<std::string> sizes;   // bench sizes (default: the seed's)
  CheckSettings check;
  BenchSettings bench;
};

struct BaselineReport {
  CheckReport check;
  std::optional<BenchReport> bench;
  std::string bench_skipped;              // why the bench did not run
  std::vector<std::string> wiki_paths;    // citations of the registered specs
  std::filesystem::path report_path;      // baseline_report.md
  bool committed = false;
  std::string commit, record_commit;
  std::string refused;                    // why nothing was committed
};

BaselineReport run_baseline(const std::filesystem::path& workspace, const BaselineOptions& options);

std::string render_baseline_md(const std::filesystem::path& workspace, const BaselineReport& report);
std::string render_baseline_text(const BaselineReport& report);
// check and bench are their summaries unless `detail` (then every case and the harness results).
nlohmann::json to_json(const BaselineReport& report, bool detail = true);

}  // namespace kgo::harness
