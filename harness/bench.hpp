#pragma once
// `kgo bench`: the timer. Runs the harness's bench on a target (the seed's sizes x runs by
// default), adds utilization against the workspace's registered roofline, renders
// benchmark.md, and records the performance fields of the current memory record.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/harness_protocol.hpp"
#include "harness/target.hpp"

namespace kgo::harness {

// The seed's protocol sizes: small, medium and large (protocol::command_default::bench::shapes).
std::vector<std::vector<long long>> seed_sizes();
// The sizes a bench times when none are given: seed_sizes() when they fit the workspace's shapes
// (none given, or all two-dimensional), else the workspace's own shapes (a 3-D GEMM, a 1-D vector).
std::vector<std::vector<long long>> default_sizes(const std::vector<std::vector<long long>>& workspace_shapes);

// Defaults from schemas/harness/request.schema.json (core/harness_protocol.hpp).
struct BenchSettings {
  int runs = protocol::request_default::bench::runs;  // the seed's 10 runs per size: the minimum
  double precision_pct = protocol::request_default::bench::precision_pct;  // then more until the median's
                                                                           // 95% interval is within +-this (0: off)
  int max_runs = protocol::request_default::bench::max_runs;  // ... or this many samples are in
  std::string graph{protocol::request_default::bench::graph};  // auto | on | off
  bool compile = true;              // time torch.compile of the reference too
  bool eager = true;
  std::optional<int> warmup;
  std::optional<int> rotate;        // input sets cycled (default: harness's auto)
  bool flush_l2 = protocol::request_default::bench::flush_l2;
  double size_timeout_s = protocol::command_default::bench::case_timeout_s;
  double total_timeout_s = protocol::command_default::bench::total_timeout_s;
  bool progress = false;
};

// "10 runs per size", or with a precision target, how many more are taken.
std::string runs_text(const BenchSettings& s);

// Throws a usage error naming the option when `s` cannot be run (runs < 1, precision < 0,
// max runs below runs).
void check_bench_settings(const BenchSettings& s);

// Utilization of one size against the registered roofline (when the workspace has one).
struct SizeUtilization {
  std::string label;                       // "4096x4096"
  std::string bound;                       // memory, compute, balanced
  std::string governing;                   // bandwidth, compute, launch_latency
  double target_time_s = 0;
  double pct_of_bandwidth = 0, pct_of_compute = 0, pct_of_target = 0;
  bool met = false;
};

struct Utilization {
  bool available = false;
  std::string why_not;                     // when unavailable: what to run
  std::string op, dtype;
  double fraction = 0;
  std::string bandwidth_cited, compute_cited, compute_metric;
  std::string bandwidth_source, compute_source;   // measured / datasheet
  std::vector<SizeUtilization> sizes;
};

// The utilization of the size labelled `label` ("4096x4096"), or nullptr.
const SizeUtilization* find_size(const Utilization& u, const std::string& label);

struct BenchReport {
  Target target;
  BenchSettings settings;
  std::string kernel_sha256;
  std::string verdict;          // PASS FAIL TIMEOUT_FAIL CRASH
  std::string message;
  nlohmann::json result;        // the harness's result
  bool synthesized = false;
  std::string stderr_tail;
  double seconds = 0;
  std::string started_at;
  Utilization utilization;
  std::optional<int> recorded_version;
  std::string record_note;
  std::filesystem::path report_path;   // benchmark.md, when written
  bool passed() const { return verdict == "PASS"; }
};

// Runs the bench (target.shapes are the sizes; empty: seed_sizes()). `work` is the per-shape
// bytes/FLOPs list for the request (empty: the harness counts). Throws only when the harness
// cannot run.
// `ceilings` (ceilings_for) lets the harness refuse a time below the physical floor (REWARD_HACK).
BenchReport run_bench(const Target& target, const BenchSettings& settings, const nlohmann::json& work,
                      const nlohmann::json& ceilings = nullptr);

// The `performance` value written to memory (without the stamp), or nullopt when the run has no
// usable latency.
std::optional<nlohmann::json> performance_value(const BenchReport& report);

// Writes performance and environment into the current record: only for a PASS on a GPU.
void record_bench(const std::filesystem::path& workspace, BenchReport& report);

// benchmark.md: per-size table (kernel, eager, compile, speedups, TB/s, TFLOP/s, % of the
// roofline target), aggregates, clocks and the method.
std::string render_benchmark_md(const BenchReport& report, const std::string& title);

std::string render_bench_text(const BenchReport& report);
// The markdown per-size table of benchmark.md (also used by baseline_report.md).
std::string render_sizes_table(const BenchReport& report);
// A summary (per-size medians and ratios, no samples) unless `detail` (then the harness result).
nlohmann::json to_json(const BenchReport& report, bool detail = true);
std::string bench_failure_explanation(const BenchReport& report);

// "256x256" for a JSON shape array.
std::string shape_label(const nlohmann::json& shape);

}  // namespace kgo::harness
