#include "roofline/analysis.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "roofline/format.hpp"

namespace kgo::roofline {

std::string SpecRef::as_written() const {
  std::string number = value_text.empty() ? fmt::format("{}", value) : value_text;
  return unit.empty() ? number : number + " " + unit;
}

std::string SpecRef::cited() const { return as_written() + " <- " + citation; }

std::string to_string(Bound b) {
  switch (b) {
    case Bound::memory: return "memory";
    case Bound::compute: return "compute";
    case Bound::balanced: return "balanced";
  }
  return "memory";
}

std::string to_string(Floor f) {
  switch (f) {
    case Floor::bandwidth: return "bandwidth";
    case Floor::compute: return "compute";
    case Floor::launch_latency: return "launch_latency";
  }
  return "bandwidth";
}

Bound classify(double ai_over_ridge) {
  if (ai_over_ridge < kBalancedLow) return Bound::memory;
  if (ai_over_ridge > kBalancedHigh) return Bound::compute;
  return Bound::balanced;
}

namespace {

SpecRef to_ref(const specs::SpecEntry& e) {
  return {e.metric, e.value, e.value_text, e.unit, e.si_value, e.citation, e.measured};
}

std::optional<SpecRef> usable(const specs::Registry& reg, const std::string& metric, bool prefer_measured) {
  auto e = reg.get(metric, prefer_measured);
  if (!e || !(e->si_value > 0) || !std::isfinite(e->si_value)) return std::nullopt;
  return to_ref(*e);
}

std::optional<SpecRef> datasheet(const specs::Registry& reg, const std::string& metric) {
  for (const specs::SpecEntry& e : reg.specs) {
    if (e.metric == metric && !e.unknown && !e.measured && e.si_value > 0) return to_ref(e);
  }
  return std::nullopt;
}

}  // namespace

std::optional<SpecRef> registered(const specs::Registry& reg, const std::string& metric) {
  return usable(reg, metric, true);
}

std::optional<SpecRef> highest_registered(const specs::Registry& reg, const std::string& metric) {
  auto best = usable(reg, metric, true);
  auto sheet = datasheet(reg, metric);
  if (sheet && (!best || sheet->si_value > best->si_value)) best = sheet;
  return best;
}

Inputs select_inputs(const specs::Registry& reg, const std::string& compute_metric, bool need_sm_count) {
  Inputs in;
  in.platform = reg.platform;
  auto bw = usable(reg, "hbm_bandwidth", true);
  auto peak = usable(reg, compute_metric, true);
  auto sms = need_sm_count ? usable(reg, "sm_count", true) : std::nullopt;
  std::vector<std::string> missing;
  if (!bw) missing.push_back("hbm_bandwidth (peak HBM bandwidth)");
  if (!peak) missing.push_back(compute_metric + " (peak compute for this op and dtype)");
  if (need_sm_count && !sms) missing.push_back("sm_count (needed by --grid)");
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
    // A dtype's tensor peak ("bf16_tensor") is registered by `spec auto --dtype bf16`, not by plain `spec auto`.
    std::string dtype = compute_metric.substr(0, compute_metric.find('_'));
    std::string fix = !peak && compute_metric != "fp32" ? "kgo spec auto --dtype " + dtype : "kgo spec auto";
    throw Error(fmt::format("the workspace spec registry (specs.json) has no registered {} for {}; run "
                            "`{}` to register them from the gpu-wiki (or `kgo spec add` with a "
                            "citation). kgo roofline never substitutes a number of its own.",
                            list, reg.platform.empty() ? "this platform" : reg.platform, fix),
                ExitCode::missing_spec);
  }
  in.bandwidth = *bw;
  in.compute = *peak;
  if (bw->measured) in.bandwidth_datasheet = datasheet(reg, "hbm_bandwidth");
  if (peak->measured) in.compute_datasheet = datasheet(reg, compute_metric);
  in.launch_latency = usable(reg, "launch_latency", true);
  if (in.launch_latency && !in.launch_latency->measured) in.launch_latency.reset();  // measured only
  in.sm_count = sms;
  return in;
}

namespace {

GridCeiling grid_ceiling(const Work& w, long long grid, const Inputs& in) {
  GridCeiling g;
  g.grid = grid;
  g.units = static_cast<long long>(std::llround(in.sm_count->si_value));
  if (g.units <= 0) {
    throw Error("registered sm_count is not a positive count; re-register it with `kgo spec auto`",
                ExitCode::missing_spec);
  }
  g.waves = (grid + g.units - 1) / g.units;
  g.unit_utilization = std::min(static_cast<double>(grid) / g.units, 1.0);
  g.wave_efficiency = static_cast<double>(grid) / static_cast<double>(g.waves * g.units);
  g.tile_flops = w.flops / grid;
  g.tile_bytes = w.bytes / grid;
  // One tile runs on one SM, which owns 1/units of the device's peak compute and bandwidth while a
  // full wave runs; so one full wave takes exactly the whole-device floor.
  double per_unit_peak = in.compute.si_value / g.units;
  double per_unit_bw = in.bandwidth.si_value / g.units;
  g.tile_floor_s = std::max(g.tile_flops / per_unit_peak, g.tile_bytes / per_unit_bw);
  g.quantized_floor_s = g.waves * g.tile_floor_s;
  g.ceiling_bandwidth = w.bytes / g.quantized_floor_s;
  g.ceiling_flops = w.flops / g.quantized_floor_s;
  return g;
}

ShapeResult one_shape(Case c, const Inputs& in, double ridge, double fraction) {
  ShapeResult r;
  const Work& w = c.work;
  r.ai = w.flops / w.bytes;
  r.ai_over_ridge = r.ai / ridge;
  r.bound = classify(r.ai_over_ridge);
  r.memory_floor_s = w.bytes / in.bandwidth.si_value;
  r.compute_floor_s = w.flops / in.compute.si_value;
  r.roofline_floor_s = std::max(r.memory_floor_s, r.compute_floor_s);
  r.governing = r.memory_floor_s >= r.compute_floor_s ? Floor::bandwidth : Floor::compute;
  r.time_floor_s = r.roofline_floor_s;
  if (in.launch_latency) {
    r.launch_floor_s = in.launch_latency->si_value;
    if (*r.launch_floor_s > r.roofline_floor_s) {
      r.governing = Floor::launch_latency;
      r.time_floor_s = *r.launch_floor_s;
    }
  }
  r.target_time_s = r.time_floor_s / fraction;
  r.target_bandwidth = w.bytes / r.target_time_s;
  r.target_flops = w.flops / r.target_time_s;
  r.c = std::move(c);
  return r;
}

Measurement measure(const ShapeResult& r, const MeasuredTime& t, const Inputs& in) {
  if (!(t.time_s > 0) || !std::isfinite(t.time_s)) {
    throw Error("measured time from " + t.source + " must be a positive number of microseconds",
                ExitCode::usage);
  }
  // A typed time faster than the roofline floor (the registered peaks) is not a measurement of this
  // work: a wrong unit or a wrong shape. A recorded one is the bench's (L2 flushed) and stays as measured.
  if (t.source == "--time-us" && t.time_s < r.roofline_floor_s) {
    throw Error(fmt::format("--time-us {:.4g} for {} is below the roofline floor of {:.4g} us ({:.0f}% of the "
                            "registered bandwidth): no kernel moves these bytes that fast; check the unit "
                            "(microseconds) and the --shape",
                            t.time_s * 1e6, r.c.label, r.roofline_floor_s * 1e6,
                            100 * r.c.work.bytes / t.time_s / in.bandwidth.si_value),
                ExitCode::usage);
  }
  Measurement m;
  m.time_s = t.time_s;
  m.source = t.source;
  m.achieved_bandwidth = r.c.work.bytes / t.time_s;
  m.achieved_flops = r.c.work.flops / t.time_s;
  m.pct_of_bandwidth = 100 * m.achieved_bandwidth / in.bandwidth.si_value;
  m.pct_of_compute = 100 * m.achieved_flops / in.compute.si_value;
  m.pct_of_target = 100 * r.target_time_s / t.time_s;
  if (r.grid) m.pct_of_grid_ceiling = 100 * r.grid->quantized_floor_s / t.time_s;
  m.met = t.time_s <= r.target_time_s;
  return m;
}

}  // namespace

Analysis analyze(const std::string& op, const DType& dtype, bool matmul_like, std::vector<Case> cases,
                 const Inputs& inputs, double fraction, std::optional<long long> grid,
                 const std::vector<std::optional<MeasuredTime>>& times) {
  if (!(fraction > 0 && fraction <= 1)) {
    throw Error(fmt::format("--fraction {} is out of range; give a fraction of peak in (0, 1], e.g. 0.9", fraction),
                ExitCode::usage);
  }
  if (grid && *grid <= 0) throw Error("--grid must be a positive number of blocks", ExitCode::usage);
  if (!times.empty() && times.size() != cases.size()) {
    throw Error(fmt::format("{} measured times for {} shapes; give one --time-us per --shape", times.size(),
                            cases.size()),
                ExitCode::usage);
  }
  Analysis a;
  a.op = op;
  a.dtype = dtype.name;
  a.dtype_bytes = dtype.bytes;
  a.matmul_like = matmul_like;
  a.fraction = fraction;
  a.inputs = inputs;
  a.ridge = inputs.compute.si_value / inputs.bandwidth.si_value;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Work& w = cases[i].work;
    if (!(w.bytes > 0) || !std::isfinite(w.bytes) || !(w.flops >= 0) || !std::isfinite(w.flops)) {
      throw Error(fmt::format("case {}: bytes must be > 0 and FLOPs >= 0 (got {} bytes, {} FLOPs)",
                              cases[i].label, w.bytes, w.flops),
                  ExitCode::expression_error);
    }
    ShapeResult r = one_shape(std::move(cases[i]), inputs, a.ridge, fraction);
    if (grid) r.grid = grid_ceiling(r.c.work, *grid, inputs);
    if (!times.empty() && times[i]) {
      r.measured = measure(r, *times[i], inputs);
      a.evaluated = true;
    }
    a.shapes.push_back(std::move(r));
  }
  a.met = a.evaluated;
  for (const ShapeResult& r : a.shapes) {
    if (r.measured && !r.measured->met) a.met = false;
  }
  if (!a.shapes.empty()) {
    auto largest = std::max_element(a.shapes.begin(), a.shapes.end(), [](const auto& x, const auto& y) {
      return x.c.work.bytes + x.c.work.flops < y.c.work.bytes + y.c.work.flops;
    });
    // The seed classifies with AI >= ridge -> compute, else memory (no balanced band).
    a.seed_bound = largest->ai_over_ridge >= 1 ? Bound::compute : Bound::memory;
    a.seed_target = fraction * (a.seed_bound == Bound::memory ? inputs.bandwidth.si_value : inputs.compute.si_value);
  }
  return a;
}

}  // namespace kgo::roofline
