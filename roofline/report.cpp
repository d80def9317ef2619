// roofline.json and the text output of `kgo roofline`.
#include <fmt/format.h>

#include "roofline/format.hpp"
#include "roofline/render.hpp"

namespace kgo::roofline {

namespace {

nlohmann::json ref_json(const std::optional<SpecRef>& r) {
  if (!r) return nullptr;
  return {{"metric", r->metric},     {"value", r->value},       {"cited", r->cited()},
          {"unit", r->unit},         {"si_value", r->si_value}, {"citation", r->citation},
          {"source", r->source()}};
}

nlohmann::json opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

nlohmann::json shape_json(const ShapeResult& r) {
  nlohmann::json j = {{"label", r.c.label},
                      {"shape", r.c.shape},
                      {"flops", r.c.work.flops},
                      {"bytes", r.c.work.bytes},
                      {"steps", r.c.work.steps},
                      {"arithmetic_intensity", r.ai},
                      {"ai_over_ridge", r.ai_over_ridge},
                      {"bound", to_string(r.bound)},
                      {"memory_floor_s", r.memory_floor_s},
                      {"compute_floor_s", r.compute_floor_s},
                      {"roofline_floor_s", r.roofline_floor_s},
                      {"launch_floor_s", opt(r.launch_floor_s)},
                      {"latency_floor_known", r.launch_floor_s.has_value()},
                      {"time_floor_s", r.time_floor_s},
                      {"governing_floor", to_string(r.governing)},
                      {"target_time_s", r.target_time_s},
                      {"target_bandwidth_bytes_per_s", r.target_bandwidth},
                      {"target_flop_per_s", r.target_flops},
                      {"grid", nullptr},
                      {"measured", nullptr}};
  if (r.grid) {
    const GridCeiling& g = *r.grid;
    j["grid"] = {{"grid", g.grid},
                 {"units", g.units},
                 {"waves", g.waves},
                 {"unit_utilization", g.unit_utilization},
                 {"wave_efficiency", g.wave_efficiency},
                 {"tile_flops", g.tile_flops},
                 {"tile_bytes", g.tile_bytes},
                 {"tile_floor_s", g.tile_floor_s},
                 {"quantized_floor_s", g.quantized_floor_s},
                 {"ceiling_bandwidth_bytes_per_s", g.ceiling_bandwidth},
                 {"ceiling_flop_per_s", g.ceiling_flops}};
  }
  if (r.measured) {
    const Measurement& m = *r.measured;
    j["measured"] = {{"time_s", m.time_s},
                     {"source", m.source},
                     {"achieved_bandwidth_bytes_per_s", m.achieved_bandwidth},
                     {"achieved_flop_per_s", m.achieved_flops},
                     {"pct_of_bandwidth", m.pct_of_bandwidth},
                     {"pct_of_compute", m.pct_of_compute},
                     {"pct_of_target", m.pct_of_target},
                     {"pct_of_grid_ceiling", opt(m.pct_of_grid_ceiling)},
                     {"met", m.met}};
  }
  return j;
}

}  // namespace

nlohmann::json to_json(const Analysis& a) {
  nlohmann::json shapes = nlohmann::json::array();
  for (const ShapeResult& r : a.shapes) shapes.push_back(shape_json(r));
  bool compute = a.seed_bound == Bound::compute;
  return {{"op", a.op},
          {"dtype", a.dtype},
          {"dtype_bytes", a.dtype_bytes},
          {"matmul_like", a.matmul_like},
          {"fraction", a.fraction},
          {"platform", a.inputs.platform},
          {"inputs",
           {{"bandwidth", ref_json(a.inputs.bandwidth)},
            {"bandwidth_datasheet", ref_json(a.inputs.bandwidth_datasheet)},
            {"compute", ref_json(a.inputs.compute)},
            {"compute_datasheet", ref_json(a.inputs.compute_datasheet)},
            {"launch_latency", ref_json(a.inputs.launch_latency)},
            {"sm_count", ref_json(a.inputs.sm_count)}}},
          {"ridge_flop_per_byte", a.ridge},
          {"balanced_band", {kBalancedLow, kBalancedHigh}},
          {"shapes", shapes},
          {"seed_target",
           {{"bound", to_string(a.seed_bound)},
            {"metric", compute ? a.inputs.compute.metric : a.inputs.bandwidth.metric},
            {"value_si", a.seed_target},
            {"unit", compute ? "FLOP/s" : "bytes/s"}}},
          {"evaluated", a.evaluated},
          {"met", a.evaluated ? nlohmann::json(a.met) : nlohmann::json(nullptr)}};
}

std::string render_text(const Analysis& a) {
  const Inputs& in = a.inputs;
  std::string out = fmt::format("roofline: {} {} on {}\n", a.op, a.dtype, in.platform);
  out += fmt::format("  bandwidth  {} ({})\n", in.bandwidth.cited(), in.bandwidth.source());
  out += fmt::format("  compute    {} ({}, {})\n", in.compute.cited(), in.compute.metric, in.compute.source());
  out += in.launch_latency ? fmt::format("  launch     {} (measured)\n", in.launch_latency->cited())
                           : "  launch     latency floor unknown (no registered launch_latency)\n";
  out += fmt::format("  ridge      {} FLOP/byte; target fraction {}\n\n", fmt_sig(a.ridge), fmt_sig(a.fraction));
  out += fmt::format("  {:<16} {:>18} {:>18} {:>10} {:>9} {:>12} {:>15} {:>12}\n", "shape", "FLOPs", "bytes", "AI",
                     "bound", "floor", "governed by", "target");
  for (const ShapeResult& r : a.shapes) {
    out += fmt::format("  {:<16} {:>18} {:>18} {:>10} {:>9} {:>12} {:>15} {:>12}\n", r.c.label, fmt_count(r.c.work.flops),
                       fmt_count(r.c.work.bytes), fmt_sig(r.ai), to_string(r.bound), fmt_us(r.time_floor_s),
                       to_string(r.governing), fmt_us(r.target_time_s));
  }
  out += fmt::format("  seed figure: {}-bound, target {}\n",
                     to_string(a.seed_bound),
                     a.seed_bound == Bound::compute ? fmt_flop_rate(a.seed_target) : fmt_bandwidth(a.seed_target));
  for (const ShapeResult& r : a.shapes) {
    if (r.grid) {
      const GridCeiling& g = *r.grid;
      out += fmt::format("  {} grid {}: {} wave(s) on {} SMs ({}% efficient), per-tile floor {}, wave-quantized "
                         "floor {} (ceiling {}, {})\n",
                         r.c.label, g.grid, g.waves, g.units, fmt_sig(100 * g.wave_efficiency), fmt_us(g.tile_floor_s),
                         fmt_us(g.quantized_floor_s), fmt_bandwidth(g.ceiling_bandwidth), fmt_flop_rate(g.ceiling_flops));
    }
  }
  for (const ShapeResult& r : a.shapes) {
    if (!r.measured) continue;
    const Measurement& m = *r.measured;
    out += fmt::format("  {} measured {} ({}): {} ({}% of {}), {} ({}% of {}); {}% of target {} -> {}\n", r.c.label,
                       fmt_us(m.time_s), m.source, fmt_bandwidth(m.achieved_bandwidth), fmt_sig(m.pct_of_bandwidth),
                       in.bandwidth.as_written(), fmt_flop_rate(m.achieved_flops),
                       fmt_sig(m.pct_of_compute), in.compute.as_written(), fmt_sig(m.pct_of_target),
                       fmt_us(r.target_time_s), m.met ? "MET" : "MISSED");
    if (m.pct_of_grid_ceiling) {
      out += fmt::format("    {}% of the wave-quantized ceiling\n", fmt_sig(*m.pct_of_grid_ceiling));
    }
  }
  if (a.evaluated) out += a.met ? "  result: every measured shape met its target\n" : "  result: target missed\n";
  return out;
}

}  // namespace kgo::roofline
