// Rendering of `kgo bench` results: benchmark.md, its per-size table, the terminal text and --json.
#include <fmt/format.h>

#include "harness/bench.hpp"
#include "harness/fields.hpp"

namespace kgo::harness {

std::string runs_text(const BenchSettings& s) {
  if (s.precision_pct <= 0) return fmt::format("{} runs per size", s.runs);
  return fmt::format("at least {} runs per size, more until the median's 95% interval is within +-{}% (at most {})",
                     s.runs, s.precision_pct, s.max_runs);
}

using nlohmann::json;

namespace {

// One line per audit flag of every size ("<prefix><size>: <reason>\n").
std::string audit_lines(const json& res, const std::string& prefix) {
  std::string out;
  for (const auto& sz : jobj(res, "sizes")) {
    for (const auto& a : jobj(sz, "audit")) {
      if (a.is_string()) out += prefix + shape_label(sz.value("shape", json::array())) + ": " + a.get<std::string>() + "\n";
    }
  }
  return out;
}

std::string ratio(const std::optional<double>& v) { return v ? fmt::format("{:.2f}x", *v) : "-"; }
std::string sig(const std::optional<double>& v, int digits = 3) {
  return v ? fmt::format("{:.{}g}", *v, digits) : "-";
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

std::string render_sizes_table(const BenchReport& r) {
  const json& res = r.result;
  std::string md =
      "| Size | Mode | Runs | Median (us) | Median 95% CI (+-%) | IQR (us) | Mean (us) | Eager (us) | Compile (us) | "
      "vs eager | vs compile | vs best | TB/s | TFLOP/s | % of BW peak | % of target | Target met |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& s : jobj(res, "sizes")) {
    std::string label = shape_label(s.value("shape", json::array()));
    const SizeUtilization* u = find_size(r.utilization, label);
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                      label, jstr(s, "mode", "-"), s.value("runs", 0), us(jnum(s, "median_us")),
                      us(jnum(s, "median_ci_pct")), us(jnum(s, "iqr_us")), us(jnum(s, "mean_us")),
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
  // The device's name as torch reports it, measured on this machine: the audit reads "80GB" in
  // "NVIDIA H100 80GB HBM3" as a hardware number otherwise.
  md += fmt::format("| Device (measured) | {} ({}) |\n", r.target.device, jstr(env, "gpu", "no GPU"));
  md += fmt::format("| Software | driver {}, CUDA {}, torch {}, triton {} |\n", jstr(env, "driver", "-"),
                    jstr(env, "cuda", "-"), jstr(env, "torch", "-"), jstr(env, "triton", "-"));
  md += fmt::format("| Date | {} |\n", r.started_at);
  md += fmt::format("| Verdict | {}: {} |\n", r.verdict, r.message);
  std::string baselines = std::string(r.settings.eager ? "eager" : "") +
                          (r.settings.eager && r.settings.compile ? " and " : "") +
                          (r.settings.compile ? "torch.compile" : "");
  if (r.target.device == "cuda") {
    md += fmt::format(
        "| Method | {} after warm-up; median and IQR; CUDA events with a device synchronize before "
        "the end event; L2 {} outside the timed region; rotating input sets; CUDA-graph mode {} (see Mode); "
        "PyTorch {} timed the same way |\n",
        runs_text(r.settings), r.settings.flush_l2 ? "flushed" : "not flushed", r.settings.graph,
        baselines.empty() ? "baselines not" : baselines);
  } else {
    md += fmt::format("| Method | {} with a host timer (Triton interpreter); PyTorch {} timed the same "
                      "way |\n",
                      runs_text(r.settings), baselines.empty() ? "baselines not" : baselines);
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
  if (std::string flags = audit_lines(res, "- "); !flags.empty()) {
    md += "\n## For a human to check\n\nThe judge flags results this good for a look at the kernel and the "
          "measurement (REWARD_HACK is reserved for the impossible):\n\n" + flags;
  }
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
  md += "\n## Run conditions (measured)\n\n";
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
  std::string text = fmt::format("kgo bench: {} ({}, device {}, {}, graph {})\n",
                                 r.target.kernel.filename().string(), r.target.torch_dtype, r.target.device,
                                 runs_text(r.settings), r.settings.graph);
  text += fmt::format("  {:<12} {:>6} {:>5} {:>11} {:>7} {:>9} {:>11} {:>11} {:>8} {:>8} {:>8} {:>8} {:>9}\n", "size",
                      "mode", "runs", "median us", "+-95%", "IQR us", "eager us", "compile us", "vs eager", "vs comp", "TB/s", "TFLOP/s",
                      "% target");
  for (const auto& s : jobj(r.result, "sizes")) {
    std::string label = shape_label(s.value("shape", json::array()));
    const SizeUtilization* u = find_size(r.utilization, label);
    text += fmt::format("  {:<12} {:>6} {:>5} {:>11} {:>7} {:>9} {:>11} {:>11} {:>8} {:>8} {:>8} {:>8} {:>9}\n", label,
                        jstr(s, "mode", "-"), s.value("runs", 0), us(jnum(s, "median_us")),
                        us(jnum(s, "median_ci_pct")), us(jnum(s, "iqr_us")), us(jnum(s, "eager_us")),
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
  text += audit_lines(r.result, "  audit: ");
  for (const auto& w : jobj(r.result, "warnings")) {
    if (w.is_string()) text += "  warning: " + w.get<std::string>() + "\n";
  }
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

namespace {

// Per size in the summary: the timings and ratios an agent decides on (no samples, clocks or method).
json summary_sizes(const json& result) {
  json out = json::array();
  for (const auto& s : jobj(result, "sizes")) {
    json row = {{"shape", shape_label(s.value("shape", json::array()))}};
    for (const char* k : {"median_us", "median_ci_pct", "eager_us", "compile_us", "speedup_vs_eager",
                          "speedup_vs_compile", "achieved_tbps", "achieved_tflops", "mode", "message"}) {
      if (s.contains(k) && !s[k].is_null()) row[k] = s[k];
    }
    if (s.contains("audit") && s["audit"].is_array() && !s["audit"].empty()) row["audit"] = s["audit"];
    out.push_back(row);
  }
  return out;
}

}  // namespace

json to_json(const BenchReport& r, bool detail) {
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
  json j = {{"verdict", r.verdict},
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
          {"utilization", util}};
  j["gpu_uuid"] = jobj(r.result, "environment").value("gpu_uuid", json());
  if (detail) {
    j["harness"] = r.result;
    return j;
  }
  for (const char* k : {"final_median_us", "geomean_speedup_vs_eager", "geomean_speedup_vs_compile"}) {
    j[k] = r.result.contains(k) ? r.result[k] : json();
  }
  j["sizes"] = summary_sizes(r.result);
  if (auto w = r.result.find("warnings"); w != r.result.end() && w->is_array() && !w->empty()) j["warnings"] = *w;
  j["detail"] = "--detail adds the harness result: every sample, clocks, environment and method";
  return j;
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
  if (r.verdict == "REWARD_HACK") return "bench REWARD_HACK: " + r.message + "; this time is not recorded";
  if (r.verdict == "INVALID_REFERENCE") return "bench INVALID_REFERENCE: " + r.message;
  if (r.verdict == "UNTRUSTED") return "bench UNTRUSTED: " + r.message;
  return "";
}

}  // namespace kgo::harness
