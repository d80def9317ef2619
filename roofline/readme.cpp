// README sections of `kgo roofline`. Every line that states a hardware number (or a number derived
// from one) carries the `<- <gpu-wiki>/path:line` citation of its input on the same line, which is
// what `kgo audit` checks.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "roofline/catalog.hpp"
#include "roofline/format.hpp"
#include "roofline/isa_targets.hpp"
#include "roofline/render.hpp"

namespace kgo::roofline {

namespace {

std::string bound_text(Bound b) { return to_string(b) + (b == Bound::balanced ? "" : "-bound"); }

std::string floor_text(Floor f) {
  switch (f) {
    case Floor::bandwidth: return "the bandwidth floor";
    case Floor::compute: return "the compute floor";
    case Floor::launch_latency: return "the launch-latency floor";
  }
  return "";
}

std::string op_line(const Analysis& a) {
  if (a.op == "custom") {
    return fmt::format("- kernel: custom (`--flops`/`--bytes` expressions); dtype {}, {} bytes per element; "
                       "compute peak `{}`",
                       a.dtype, a.dtype_bytes, a.inputs.compute.metric);
  }
  const OpInfo& op = find_op(a.op);
  return fmt::format("- op: {} ({}); dtype {}, {} bytes per element; compute peak `{}`\n"
                     "- formulas: FLOPs = {}; bytes = {}; shape = {}",
                     op.name, op.summary, a.dtype, a.dtype_bytes, a.inputs.compute.metric, op.flops, op.bytes,
                     op.shape);
}

void inputs_block(const Analysis& a, std::string& out) {
  const Inputs& in = a.inputs;
  out += "### Inputs\n\n";
  out += fmt::format("- peak bandwidth `{}` ({}): {}\n", in.bandwidth.metric, in.bandwidth.source(), in.bandwidth.cited());
  if (in.bandwidth_datasheet) {
    out += fmt::format("- datasheet bandwidth (not used: a measured maximum is registered): {}\n",
                       in.bandwidth_datasheet->cited());
  }
  out += fmt::format("- peak compute `{}` ({}): {}\n", in.compute.metric, in.compute.source(), in.compute.cited());
  if (in.compute_datasheet) {
    out += fmt::format("- datasheet compute (not used: a measured maximum is registered): {}\n",
                       in.compute_datasheet->cited());
  }
  if (in.launch_latency) {
    out += fmt::format("- launch latency `launch_latency` (measured): {}\n", in.launch_latency->cited());
  } else {
    out += "- launch latency: none registered, so the latency floor is unknown (record one with "
           "`kgo ceiling --record`)\n";
  }
  if (in.sm_count) out += fmt::format("- SM count `sm_count` ({}): {}\n", in.sm_count->source(), in.sm_count->cited());
}

void shape_block(const Analysis& a, const ShapeResult& r, std::string& out) {
  const Inputs& in = a.inputs;
  const Work& w = r.c.work;
  out += fmt::format("\n### {}\n\n", r.c.label);
  int n = 0;
  for (const std::string& s : w.steps) out += fmt::format("{}. {}\n", ++n, s);
  out += fmt::format("{}. AI = FLOPs / bytes = {} / {} = {} FLOP/byte\n", ++n, fmt_count(w.flops),
                     fmt_count(w.bytes), fmt_sig(r.ai));
  out += fmt::format("{}. AI / ridge = {} / {} = {} -> {}\n", ++n, fmt_sig(r.ai), fmt_sig(a.ridge),
                     fmt_sig(r.ai_over_ridge), bound_text(r.bound));
  out += fmt::format("{}. bandwidth floor = bytes / BW = {} B / {} = {}; BW {}\n", ++n, fmt_count(w.bytes),
                     in.bandwidth.as_written(), fmt_us(r.memory_floor_s), in.bandwidth.cited());
  out += fmt::format("{}. compute floor = FLOPs / peak = {} / {} = {}; peak {}\n", ++n, fmt_count(w.flops),
                     in.compute.as_written(), fmt_us(r.compute_floor_s), in.compute.cited());
  if (r.launch_floor_s) {
    out += fmt::format("{}. launch floor = {}; launch_latency {}\n", ++n, fmt_us(*r.launch_floor_s),
                       in.launch_latency->cited());
    out += fmt::format("{}. time floor = max({}, {}, {}) = {}, governed by {}\n", ++n, fmt_us(r.memory_floor_s),
                       fmt_us(r.compute_floor_s), fmt_us(*r.launch_floor_s), fmt_us(r.time_floor_s),
                       floor_text(r.governing));
  } else {
    out += fmt::format("{}. launch floor: latency floor unknown (no registered launch_latency)\n", ++n);
    out += fmt::format("{}. time floor = max({}, {}) = {}, governed by {}\n", ++n, fmt_us(r.memory_floor_s),
                       fmt_us(r.compute_floor_s), fmt_us(r.time_floor_s), floor_text(r.governing));
  }
  out += fmt::format("{}. target time = time floor / {} = {}\n", ++n, fmt_sig(a.fraction), fmt_us(r.target_time_s));
  if (r.grid) {
    const GridCeiling& g = *r.grid;
    out += fmt::format("{}. grid {}: waves = ceil({} / {}) = {}, wave efficiency {}%; SMs {}\n", ++n, g.grid, g.grid,
                       g.units, g.waves, fmt_sig(100 * g.wave_efficiency), in.sm_count->cited());
    out += fmt::format("{}. per-tile floor = max({} FLOPs / (peak / {}), {} B / (BW / {})) = {}; wave-quantized "
                       "floor = {} x {} = {}; peak {}; BW {}\n",
                       ++n, fmt_sig(g.tile_flops, 6), g.units, fmt_sig(g.tile_bytes, 6), g.units, fmt_us(g.tile_floor_s),
                       g.waves, fmt_us(g.tile_floor_s), fmt_us(g.quantized_floor_s), in.compute.cited(),
                       in.bandwidth.cited());
  }
}

std::string rate_target(const Analysis& a, Floor f) {
  const Inputs& in = a.inputs;
  if (f == Floor::compute) {
    return fmt::format("compute >= {} = {} x {}", fmt_flop_rate(a.fraction * in.compute.si_value), fmt_sig(a.fraction),
                       in.compute.cited());
  }
  return fmt::format("bandwidth >= {} = {} x {}", fmt_bandwidth(a.fraction * in.bandwidth.si_value),
                     fmt_sig(a.fraction), in.bandwidth.cited());
}

}  // namespace

std::string roofline_section(const Analysis& a) {
  const Inputs& in = a.inputs;
  std::string out =
      "Generated by `kgo roofline`; a re-run rewrites this section. Formulas and counting choices: "
      "`kgo roofline --explain`.\n\n";
  out += fmt::format("- platform: {}\n{}\n\n", in.platform, op_line(a));
  inputs_block(a, out);
  out += "\n### Ridge point and bound rule\n\n";
  out += fmt::format("- ridge = peak / BW = {} / {} = {} FLOP/byte; peak {}; BW {}\n",
                     in.compute.as_written(), in.bandwidth.as_written(),
                     fmt_sig(a.ridge), in.compute.cited(), in.bandwidth.cited());
  out += fmt::format("- bound: memory when AI / ridge < {}, compute when AI / ridge > {}, otherwise balanced (the "
                     "smaller floor is at least {}% of the larger; a kgo convention)\n",
                     fmt_sig(kBalancedLow), fmt_sig(kBalancedHigh), fmt_sig(100 * kBalancedLow));
  for (const ShapeResult& r : a.shapes) shape_block(a, r, out);
  return out;
}

std::string stop_conditions_section(const Analysis& a) {
  const Inputs& in = a.inputs;
  std::string out = fmt::format(
      "Generated by `kgo roofline`: one target per shape at {} of peak (`--fraction`), from the inputs in "
      "Roofline Analysis. Check a measured time with `kgo roofline --time-us T` or `--from-memory vN` "
      "(exit 0 when met, 2 when missed).\n\n",
      fmt_sig(a.fraction));
  for (const ShapeResult& r : a.shapes) {
    if (r.governing == Floor::launch_latency) {
      out += fmt::format("- {}: time <= {} = {} / {}, launch_latency {} ({}; governed by the launch-latency floor, "
                         "which exceeds the roofline floor {}: no kernel reaches {} of peak at this size)\n",
                         r.c.label, fmt_us(r.target_time_s), fmt_us(*r.launch_floor_s), fmt_sig(a.fraction),
                         in.launch_latency->cited(), bound_text(r.bound), fmt_us(r.roofline_floor_s),
                         fmt_sig(a.fraction));
      continue;
    }
    std::vector<std::string> notes = {bound_text(r.bound), "governed by " + floor_text(r.governing)};
    if (r.bound == Bound::balanced) {
      notes.push_back(fmt::format("the other floor is within {}%, both resources matter",
                                  fmt_sig(100 * (1 - kBalancedLow))));
    }
    if (!r.launch_floor_s) notes.push_back("latency floor unknown");
    if (r.grid && r.grid->quantized_floor_s > r.target_time_s) {
      notes.push_back(fmt::format("with grid {} the wave-quantized floor {} exceeds this target", r.grid->grid,
                                  fmt_us(r.grid->quantized_floor_s)));
    }
    std::string joined;
    for (const auto& n : notes) joined += (joined.empty() ? "" : "; ") + n;
    out += fmt::format("- {}: time <= {}, i.e. {} ({})\n", r.c.label, fmt_us(r.target_time_s),
                       rate_target(a, r.governing), joined);
  }
  out += fmt::format("- seed figure (one target for every shape, as the original workflow states it; the per-shape "
                     "targets above take precedence; {}-bound by the largest shape): {}\n",
                     to_string(a.seed_bound), rate_target(a, a.seed_bound == Bound::compute ? Floor::compute : Floor::bandwidth));
  return out;
}

std::string isa_section(const std::string& arch, const Analysis& a) {
  std::string out =
      "Generated by `kgo roofline` for the architecture; `kgo asm` counts these instructions in the compiled "
      "kernel. Each target is a count, with no threshold beyond the one stated.\n\n";
  auto vendor = vendor_of_arch(arch);
  if (!vendor) {
    return out + fmt::format("- architecture `{}` is not in kgo's ISA table (roofline/isa_targets.cpp): no "
                             "targets\n",
                             arch.empty() ? "unknown" : arch);
  }
  bool custom = a.op == "custom";
  out += fmt::format("- architecture: {} ({})\n", arch, *vendor == "nvidia" ? "NVIDIA" : "AMD");
  for (const IsaTarget* t : targets_for(arch, a.matmul_like || custom)) {
    std::string when = custom && t->scope == IsaScope::matmul_like ? " (if the kernel does matrix products)" : "";
    out += fmt::format("- [ ] {}{}: {} — {} (`{}`)\n", t->title, when, t->display, t->check, t->id);
  }
  if (!a.matmul_like && !custom) {
    std::string skipped;
    for (const IsaTarget* t : matmul_targets_for(arch)) skipped += (skipped.empty() ? "" : "; ") + t->title;
    if (!skipped.empty()) out += fmt::format("- not applicable to {} (not matmul-like): {}\n", a.op, skipped);
  }
  return out;
}

}  // namespace kgo::roofline
