#include "harness/bench.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/memory.hpp"
#include "core/stamp.hpp"
#include "core/txn.hpp"
#include "core/workspace.hpp"
#include "harness/client.hpp"
#include "harness/fields.hpp"
#include "harness/record.hpp"

namespace kgo::harness {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::optional<double> opt_pos(const std::optional<double>& v) {
  return v && std::isfinite(*v) && *v > 0 ? v : std::nullopt;
}

double numel(const json& shape) {
  double n = 1;
  for (const auto& d : shape) n *= d.is_number() ? d.get<double>() : 1;
  return n;
}

// The size with the most elements: the one whose figures the record's headline fields carry.
const json* largest_size(const json& result) {
  const json* best = nullptr;
  for (const auto& s : jobj(result, "sizes")) {
    if (!jnum(s, "median_us")) continue;
    if (!best || numel(s.value("shape", json::array())) > numel(best->value("shape", json::array()))) best = &s;
  }
  return best;
}

}  // namespace

const SizeUtilization* find_size(const Utilization& u, const std::string& label) {
  for (const auto& s : u.sizes) {
    if (s.label == label) return &s;
  }
  return nullptr;
}

std::vector<std::vector<long long>> seed_sizes() {
  std::vector<std::vector<long long>> sizes;
  for (const auto& s : protocol::command_default::bench::shapes) sizes.emplace_back(s.begin(), s.end());
  return sizes;
}

std::vector<std::vector<long long>> default_sizes(const std::vector<std::vector<long long>>& workspace_shapes) {
  bool all_2d = std::all_of(workspace_shapes.begin(), workspace_shapes.end(), [](const auto& s) { return s.size() == 2; });
  return all_2d ? seed_sizes() : workspace_shapes;
}

std::string shape_label(const json& shape) {
  std::string s;
  for (const auto& d : shape) s += (s.empty() ? "" : "x") + d.dump();
  return s;
}

void check_bench_settings(const BenchSettings& s) {
  if (s.runs < 1) throw Error("--runs must be at least 1", ExitCode::usage);
  if (!(s.precision_pct >= 0)) throw Error("--precision must be a percentage >= 0 (0: exactly --runs)", ExitCode::usage);
  if (s.max_runs < s.runs) {
    throw Error(fmt::format("--max-runs ({}) must be at least --runs ({})", s.max_runs, s.runs), ExitCode::usage);
  }
}

BenchReport run_bench(const Target& target, const BenchSettings& settings, const json& work, const json& ceilings) {
  BenchReport r;
  r.target = target;
  if (r.target.shapes.empty()) r.target.shapes = seed_sizes();
  r.settings = settings;
  r.started_at = core::utc_now_iso();
  r.kernel_sha256 = core::sha256_file(target.kernel);
  json req = target_request(r.target);
  req["case_timeout_s"] = settings.size_timeout_s;
  req["total_timeout_s"] = settings.total_timeout_s;
  if (work.is_array() && !work.empty()) req["work"] = work;
  if (ceilings.is_object()) req["ceilings"] = ceilings;
  json bench = {{"runs", settings.runs},         {"precision_pct", settings.precision_pct},
                {"max_runs", settings.max_runs}, {"graph", settings.graph},
                {"flush_l2", settings.flush_l2}};
  json baselines = json::array();
  if (settings.eager) baselines.push_back("eager");
  if (settings.compile) baselines.push_back("compile");
  bench["baselines"] = baselines;
  if (settings.warmup) bench["warmup"] = *settings.warmup;
  if (settings.rotate) bench["rotate"] = *settings.rotate;
  req["bench"] = bench;
  HarnessOutcome o = run_harness({"bench", req, target.python, {}, {}, settings.progress});
  r.verdict = o.verdict;
  r.result = std::move(o.result);
  r.message = jstr(r.result, "message");
  if (!ceilings.is_object() && r.result.is_object() && r.result.contains("sizes")) {
    r.result["warnings"].push_back(
        "no physical floor: no hbm_bandwidth is registered (kgo spec auto registers one in the workspace), so a "
        "time is held only to the judge's clock, whose slack can admit a kernel's forged time "
        "(tools/kgo_harness/PROTOCOL.md, the judge's clock)");
  }
  r.synthesized = o.synthesized;
  r.stderr_tail = o.stderr_tail;
  r.seconds = o.seconds;
  if (!r.synthesized) verify_harness_hash(target.kernel, r.kernel_sha256, r.result);
  return r;
}

std::optional<json> performance_value(const BenchReport& r) {
  const json& res = r.result;
  std::optional<double> headline = opt_pos(jnum(res, "final_median_us"));
  if (!headline) return std::nullopt;
  json by_shape = json::object();
  json sizes = json::array();
  for (const auto& s : jobj(res, "sizes")) {
    std::string label = shape_label(s.value("shape", json::array()));
    if (auto m = opt_pos(jnum(s, "median_us"))) by_shape[label] = *m;
    json row = s;
    row.erase("samples_us");
    if (const SizeUtilization* u = find_size(r.utilization, label)) {
      row["pct_of_bandwidth_peak"] = u->pct_of_bandwidth;
      row["pct_of_compute_peak"] = u->pct_of_compute;
      row["pct_of_target"] = u->pct_of_target;
      row["target_met"] = u->met;
      row["governing_floor"] = u->governing;
    }
    sizes.push_back(row);
  }
  json perf = {{"latency_us", *headline}, {"latency_us_by_shape", by_shape}};
  const json* big = largest_size(res);
  auto nonneg = [](std::optional<double> v) { return v && *v >= 0 ? json(*v) : json(); };
  perf["tflops"] = big ? nonneg(jnum(*big, "achieved_tflops")) : json();
  std::optional<double> tbps = big ? jnum(*big, "achieved_tbps") : std::nullopt;
  perf["bandwidth_gbps"] = tbps ? nonneg(*tbps * 1000.0) : json();
  perf["tflops_peak_utilization_pct"] = nullptr;
  perf["bandwidth_peak_utilization_pct"] = nullptr;
  perf["tflops_target_utilization_pct"] = nullptr;
  perf["bandwidth_target_utilization_pct"] = nullptr;
  if (big) {
    if (const SizeUtilization* u = find_size(r.utilization, shape_label(big->value("shape", json::array())))) {
      perf["tflops_peak_utilization_pct"] = u->pct_of_compute;
      perf["bandwidth_peak_utilization_pct"] = u->pct_of_bandwidth;
      (u->bound == "compute" ? perf["tflops_target_utilization_pct"] : perf["bandwidth_target_utilization_pct"]) =
          u->pct_of_target;
    }
  }
  perf["details"] = {{"tool", "kgo bench"},
                     {"latency_us_is", "mean of the per-size medians"},
                     {"final_mean_us", res.value("final_mean_us", json())},
                     {"final_median_us", res.value("final_median_us", json())},
                     {"geomean_speedup_vs_eager", res.value("geomean_speedup_vs_eager", json())},
                     {"geomean_speedup_vs_compile", res.value("geomean_speedup_vs_compile", json())},
                     {"geomean_speedup_vs_best", res.value("geomean_speedup_vs_best", json())},
                     {"headline_size", big ? json(shape_label(big->value("shape", json::array()))) : json()},
                     {"runs", r.settings.runs},
                     {"graph", r.settings.graph},
                     {"device", r.target.device},
                     {"dtype", r.target.torch_dtype},
                     {"clocks", res.value("clocks", json())},
                     {"roofline_fraction", r.utilization.available ? json(r.utilization.fraction) : json()},
                     {"sizes", sizes}};
  return perf;
}

void record_bench(const fs::path& workspace, BenchReport& r) {
  if (!r.passed()) {
    r.record_note = "not recorded: the bench verdict is " + r.verdict;
    return;
  }
  if (r.target.device != "cuda") {
    r.record_note = "not recorded: timings on the CPU (Triton interpreter) are not performance measurements";
    return;
  }
  std::optional<json> perf = performance_value(r);
  if (!perf) {
    r.record_note = "not recorded: the harness reported no latency";
    return;
  }
  core::LockedWorkspace lock(workspace);
  verify_kernel_unchanged(r.target.kernel, r.kernel_sha256);
  RecordChoice choice = current_record(workspace);
  if (!choice.version) {
    r.record_note = "not recorded: " + choice.why_not;
    return;
  }
  core::record_measurement(workspace, *choice.version, "performance", *perf, r.kernel_sha256, "kgo bench",
                           core::StampInputs{stamp_sources(workspace, r.result), r.target.allow_ops});
  write_environment(workspace, *choice.version, r.result);
  r.recorded_version = choice.version;
}

}  // namespace kgo::harness
