#include "harness/bench.hpp"

#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/memory.hpp"
#include "core/txn.hpp"
#include "core/workspace.hpp"
#include "harness/client.hpp"
#include "harness/fields.hpp"
#include "harness/record.hpp"

namespace kgo::harness {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string us(const std::optional<double>& v) { return v ? fmt::format("{:.2f}", *v) : "-"; }
std::string ratio(const std::optional<double>& v) { return v ? fmt::format("{:.2f}x", *v) : "-"; }
std::string sig(const std::optional<double>& v, int digits = 3) {
  return v ? fmt::format("{:.{}g}", *v, digits) : "-";
}
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

const SizeUtilization* util_for(const Utilization& u, const std::string& label) {
  for (const auto& s : u.sizes) {
    if (s.label == label) return &s;
  }
  return nullptr;
}

std::string clock_text(const json& c) {
  if (!c.is_object() || c.empty()) return "not recorded";
  std::string names;
  for (const auto& n : jobj(c, "throttle_names")) names += (names.empty() ? "" : ", ") + n.get<std::string>();
  return fmt::format("SM {} MHz (max {}), memory {} MHz, {} W, {} C, throttle reasons: {}", sig(jnum(c, "sm_mhz"), 5),
                     sig(jnum(c, "sm_max_mhz"), 5), sig(jnum(c, "mem_mhz"), 5), sig(jnum(c, "power_w")),
                     sig(jnum(c, "temp_c")), names.empty() ? "none" : names);
}

}  // namespace

std::vector<std::vector<long long>> seed_sizes() { return {{256, 256}, {1024, 1024}, {4096, 4096}}; }

std::string shape_label(const json& shape) {
  std::string s;
  for (const auto& d : shape) s += (s.empty() ? "" : "x") + d.dump();
  return s;
}

BenchReport run_bench(const Target& target, const BenchSettings& settings, const json& work) {
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
  json bench = {{"runs", settings.runs}, {"graph", settings.graph}, {"flush_l2", settings.flush_l2}};
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
    if (const SizeUtilization* u = util_for(r.utilization, label)) {
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
    if (const SizeUtilization* u = util_for(r.utilization, shape_label(big->value("shape", json::array())))) {
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
  core::record_measurement(workspace, *choice.version, "performance", *perf, r.kernel_sha256, "kgo bench");
  write_environment(workspace, *choice.version, r.result);
  r.recorded_version = choice.version;
}

std::string render_sizes_table(const BenchReport& r) {
  const json& res = r.result;
  std::string md =
      "| Size | Mode | Median (us) | IQR (us) | Mean (us) | Eager (us) | Compile (us) | vs eager | vs compile | "
      "vs best | TB/s | TFLOP/s | % of BW peak | % of target | Target met |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& s : jobj(res, "sizes")) {
    std::string label = shape_label(s.value("shape", json::array()));
    const SizeUtilization* u = util_for(r.utilization, label);
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", label,
                      jstr(s, "mode", "-"), us(jnum(s, "median_us")), us(jnum(s, "iqr_us")), us(jnum(s, "mean_us")),
                      us(jnum(s, "eager_us")), us(jnum(s, "compile_us")), ratio(jnum(s, "speedup_vs_eager")),
                      ratio(jnum(s, "speedup_vs_compile")), ratio(jnum(s, "speedup_vs_best")),
                      sig(jnum(s, "achieved_tbps")), sig(jnum(s, "achieved_tflops")),
                      u ? sig(u->pct_of_bandwidth) : "-", u ? sig(u->pct_of_target) : "-",
                      u ? (u->met ? "yes" : "no (" + u->governing + " floor)") : "-");
  }
  return md;
}

std::string render_benchmark_md(const BenchReport& r, const std::string& title) {
  const json& res = r.result;
  const json& env = jobj(res, "environment");
  std::string md = "# Benchmark: " + title + "\n\n";
  md += "| Item | Value |\n|---|---|\n";
  md += fmt::format("| Kernel | {} (sha256 {}) |\n", r.target.kernel.filename().string(), r.kernel_sha256.substr(0, 16));
  md += fmt::format("| Reference | {} |\n",
                    r.target.reference ? r.target.reference->filename().string() : "the op table's torch reference");
  md += fmt::format("| Contract / op | {} / {} |\n", jstr(res, "contract", r.target.contract),
                    jstr(res, "op", r.target.op.value_or("-")));
  md += fmt::format("| dtype | {} |\n", r.target.torch_dtype);
  md += fmt::format("| Device | {} ({}) |\n", r.target.device, jstr(env, "gpu", "no GPU"));
  md += fmt::format("| Software | driver {}, CUDA {}, torch {}, triton {} |\n", jstr(env, "driver", "-"),
                    jstr(env, "cuda", "-"), jstr(env, "torch", "-"), jstr(env, "triton", "-"));
  md += fmt::format("| Date | {} |\n", r.started_at);
  md += fmt::format("| Verdict | {}: {} |\n", r.verdict, r.message);
  std::string baselines = std::string(r.settings.eager ? "eager" : "") +
                          (r.settings.eager && r.settings.compile ? " and " : "") +
                          (r.settings.compile ? "torch.compile" : "");
  if (r.target.device == "cuda") {
    md += fmt::format(
        "| Method | {} runs per size after warm-up; median and IQR; CUDA events with a device synchronize before "
        "the end event; L2 {} outside the timed region; rotating input sets; CUDA-graph mode {} (see Mode); "
        "PyTorch {} timed the same way |\n",
        r.settings.runs, r.settings.flush_l2 ? "flushed" : "not flushed", r.settings.graph,
        baselines.empty() ? "baselines not" : baselines);
  } else {
    md += fmt::format("| Method | {} runs per size with a host timer (Triton interpreter); PyTorch {} timed the same "
                      "way |\n",
                      r.settings.runs, baselines.empty() ? "baselines not" : baselines);
  }
  if (r.target.device == "cpu") {
    md += "\n**CPU run (Triton interpreter): these times measure the interpreter, not a GPU kernel. "
          "They are not recorded as performance.**\n";
  }
  md += "\n## Results per size\n\n" + render_sizes_table(r);
  md += "\n## Aggregates\n\n";
  md += fmt::format("- Final (the seed's figure: mean of the per-size means): {} us\n", us(jnum(res, "final_mean_us")));
  md += fmt::format("- Mean of the per-size medians (recorded as latency_us): {} us\n", us(jnum(res, "final_median_us")));
  md += fmt::format("- Geometric mean of per-size speedups: vs eager {}, vs torch.compile {}, vs the better of the two {}\n",
                    ratio(jnum(res, "geomean_speedup_vs_eager")), ratio(jnum(res, "geomean_speedup_vs_compile")),
                    ratio(jnum(res, "geomean_speedup_vs_best")));
  md += "\n## Roofline\n\n";
  const Utilization& u = r.utilization;
  if (u.available) {
    md += fmt::format("- Op {} ({}), target = {} x the time floor of each size\n", u.op, u.dtype, u.fraction);
    md += fmt::format("- Bandwidth peak: {} ({})\n", u.bandwidth_cited, u.bandwidth_source);
    md += fmt::format("- Compute peak ({}): {} ({})\n", u.compute_metric, u.compute_cited, u.compute_source);
    for (const auto& s : u.sizes) {
      md += fmt::format("- {}: {}-bound, governed by the {} floor; target {} us; achieved {}% of the target, {}% of "
                        "the bandwidth peak, {}% of the compute peak\n",
                        s.label, s.bound, s.governing, sig(s.target_time_s * 1e6), sig(s.pct_of_target),
                        sig(s.pct_of_bandwidth), sig(s.pct_of_compute));
    }
  } else {
    md += "Utilization not computed: " + u.why_not + "\n";
  }
  md += "\n## Run conditions\n\n";
  const json& clocks = jobj(res, "clocks");
  md += fmt::format("- Clock source: {}\n", jstr(clocks, "source", "none"));
  md += "- Before: " + clock_text(clocks.value("before", json())) + "\n";
  md += "- After: " + clock_text(clocks.value("after", json())) + "\n";
  for (const auto& w : jobj(res, "warnings")) {
    if (w.is_string()) md += "- Warning: " + w.get<std::string>() + "\n";
  }
  return md;
}

std::string render_bench_text(const BenchReport& r) {
  std::string text = fmt::format("kgo bench: {} ({}, device {}, {} runs per size, graph {})\n",
                                 r.target.kernel.filename().string(), r.target.torch_dtype, r.target.device,
                                 r.settings.runs, r.settings.graph);
  text += fmt::format("  {:<12} {:>6} {:>11} {:>9} {:>11} {:>11} {:>8} {:>8} {:>8} {:>8} {:>9}\n", "size", "mode",
                      "median us", "IQR us", "eager us", "compile us", "vs eager", "vs comp", "TB/s", "TFLOP/s",
                      "% target");
  for (const auto& s : jobj(r.result, "sizes")) {
    std::string label = shape_label(s.value("shape", json::array()));
    const SizeUtilization* u = util_for(r.utilization, label);
    text += fmt::format("  {:<12} {:>6} {:>11} {:>9} {:>11} {:>11} {:>8} {:>8} {:>8} {:>8} {:>9}\n", label,
                        jstr(s, "mode", "-"), us(jnum(s, "median_us")), us(jnum(s, "iqr_us")), us(jnum(s, "eager_us")),
                        us(jnum(s, "compile_us")), ratio(jnum(s, "speedup_vs_eager")),
                        ratio(jnum(s, "speedup_vs_compile")), sig(jnum(s, "achieved_tbps")),
                        sig(jnum(s, "achieved_tflops")), u ? sig(u->pct_of_target) + "%" : "-");
  }
  text += fmt::format("  final (mean of per-size means) {} us; mean of medians {} us; geomean speedup vs eager {}, "
                      "vs compile {}, vs best {}\n",
                      us(jnum(r.result, "final_mean_us")), us(jnum(r.result, "final_median_us")),
                      ratio(jnum(r.result, "geomean_speedup_vs_eager")),
                      ratio(jnum(r.result, "geomean_speedup_vs_compile")),
                      ratio(jnum(r.result, "geomean_speedup_vs_best")));
  if (!r.utilization.available) text += "  utilization: " + r.utilization.why_not + "\n";
  text += fmt::format("verdict: {} — {}\n", r.verdict, r.message);
  if (r.synthesized && !r.stderr_tail.empty()) text += "harness stderr (last lines):\n" + r.stderr_tail + "\n";
  if (!r.report_path.empty()) text += "wrote " + r.report_path.string() + "\n";
  if (r.recorded_version) {
    text += fmt::format("recorded: memory/v{}.json performance (kernel sha256 {})\n", *r.recorded_version,
                        r.kernel_sha256.substr(0, 12));
  } else if (!r.record_note.empty()) {
    text += r.record_note + "\n";
  }
  return text;
}

json to_json(const BenchReport& r) {
  json util = {{"available", r.utilization.available}, {"why_not", r.utilization.why_not}};
  if (r.utilization.available) {
    json sizes = json::array();
    for (const auto& s : r.utilization.sizes) {
      sizes.push_back({{"shape", s.label},
                       {"bound", s.bound},
                       {"governing_floor", s.governing},
                       {"target_time_us", s.target_time_s * 1e6},
                       {"pct_of_bandwidth_peak", s.pct_of_bandwidth},
                       {"pct_of_compute_peak", s.pct_of_compute},
                       {"pct_of_target", s.pct_of_target},
                       {"met", s.met}});
    }
    util.update({{"op", r.utilization.op},
                 {"fraction", r.utilization.fraction},
                 {"bandwidth", r.utilization.bandwidth_cited},
                 {"compute", r.utilization.compute_cited},
                 {"sizes", sizes}});
  }
  return {{"verdict", r.verdict},
          {"message", r.message},
          {"kernel", r.target.kernel.string()},
          {"kernel_sha256", r.kernel_sha256},
          {"device", r.target.device},
          {"dtype", r.target.torch_dtype},
          {"runs", r.settings.runs},
          {"synthesized", r.synthesized},
          {"seconds", r.seconds},
          {"report", r.report_path.empty() ? json() : json(r.report_path.string())},
          {"recorded", r.recorded_version ? json("v" + std::to_string(*r.recorded_version)) : json()},
          {"record_note", r.record_note},
          {"utilization", util},
          {"harness", r.result}};
}

std::string bench_failure_explanation(const BenchReport& r) {
  if (r.verdict == "FAIL") {
    return "bench FAILED: " + r.message +
           " (an output of a timed run did not match the reference, or work escaped the timed stream)";
  }
  if (r.verdict == "TIMEOUT_FAIL") {
    return "bench TIMED OUT: " + r.message + "; use fewer --runs or --size, or raise --size-timeout / --timeout";
  }
  if (r.verdict == "CRASH") return "bench CRASHED: " + r.message + "; run kgo check to find the failing case";
  return "";
}

}  // namespace kgo::harness
