// `kgo roofline --explain`: renders the catalog (roofline/catalog.cpp) and the definitions used by
// roofline/analysis.cpp, so every formula choice is visible in one document.
#include <fmt/format.h>

#include "roofline/catalog.hpp"
#include "roofline/expr.hpp"
#include "roofline/format.hpp"
#include "roofline/render.hpp"

namespace kgo::roofline {

namespace {

std::vector<std::pair<std::string, std::string>> definitions() {
  return {
      {"inputs", "Only specs registered in the workspace (specs.json) are used: hbm_bandwidth and the compute "
                 "peak of the op's dtype (plus sm_count with --grid). A registered measured maximum is preferred "
                 "over the datasheet value and the output names which was used. A missing input is refused "
                 "(exit 15, run `kgo spec auto`); there is no built-in fallback number."},
      {"arithmetic intensity", "AI = FLOPs / bytes, in FLOP/byte."},
      {"ridge point", "ridge = peak compute (FLOP/s) / peak bandwidth (bytes/s), in FLOP/byte."},
      {"bound", fmt::format("AI / ridge equals compute floor / bandwidth floor. Memory-bound when AI / ridge < {}, "
                            "compute-bound when AI / ridge > {}, otherwise balanced (the smaller floor is at least "
                            "{}% of the larger). The band is a kgo convention, not a hardware number.",
                            fmt_sig(kBalancedLow), fmt_sig(kBalancedHigh), fmt_sig(100 * kBalancedLow))},
      {"floors", "bandwidth floor = bytes / BW; compute floor = FLOPs / peak; roofline floor = max of the two; "
                 "launch floor = the registered measured launch_latency (else 'latency floor unknown'); time "
                 "floor = max(roofline floor, launch floor). The largest names the floor that governs."},
      {"target", "target time = time floor / fraction (default 0.9). When bandwidth governs this is bandwidth >= "
                 "fraction x BW; when compute governs, compute >= fraction x peak; when the launch floor governs, "
                 "the rate targets are out of reach at that size and the target is a time."},
      {"seed figure", "The original workflow's single target: fraction x BW for a memory-bound kernel, fraction x "
                      "peak for a compute-bound one (AI >= ridge), classified by the largest shape. Kept beside "
                      "the per-shape targets, which take precedence."},
      {"measured time", "--time-us T (one per --shape) or --from-memory vN (performance.latency_us_by_shape, else "
                        "latency_us for a single shape): achieved bandwidth = bytes / T, achieved compute = FLOPs / "
                        "T, % of peak, % of target = target time / T. Exit 0 when every measured shape meets its "
                        "target, 2 when one misses."},
      {"grid", "--grid N (blocks): waves = ceil(N / SMs), tile = FLOPs / N and bytes / N, per-tile floor = "
               "max(tile FLOPs / (peak / SMs), tile bytes / (BW / SMs)), wave-quantized floor = waves x per-tile "
               "floor, ceiling = work / that floor. As atrex's compute_utilization.py, except that a tile gets one "
               "SM's share of the device (atrex divides a tile by the whole-device peak, which makes one full "
               "wave SMs times too fast)."},
      {"custom kernels", fmt::format("--flops EXPR --bytes EXPR: numbers, variables, + - * / ^, parentheses, min, "
                                     "max, ceil, floor; nothing else (at most {} characters, {} levels deep). Each "
                                     "--shape binds d0, d1, ..., M, N, K (first three dims) and numel; --var "
                                     "NAME=VALUE adds or overrides a variable. The compute peak is the dtype's "
                                     "tensor-core metric (fp32 -> fp32 CUDA cores); --peak METRIC overrides it.",
                                     kMaxExpressionLength, kMaxExpressionDepth)},
  };
}

}  // namespace

nlohmann::json explain_json() {
  nlohmann::json ops_j = nlohmann::json::array();
  for (const OpInfo& op : ops()) {
    ops_j.push_back({{"name", op.name},
                     {"aliases", op.aliases},
                     {"summary", op.summary},
                     {"shape", op.shape},
                     {"flops", op.flops},
                     {"bytes", op.bytes},
                     {"choices", op.choices},
                     {"matmul_like", op.matmul_like}});
  }
  nlohmann::json dtypes_j = nlohmann::json::array();
  for (const DType& d : dtypes()) {
    dtypes_j.push_back({{"name", d.name},
                        {"bytes", d.bytes},
                        {"vector_metric", d.vector_metric},
                        {"tensor_metric", d.tensor_metric},
                        {"note", d.note}});
  }
  nlohmann::json defs = nlohmann::json::object();
  for (const auto& [k, v] : definitions()) defs[k] = v;
  return {{"conventions", counting_conventions()}, {"dtypes", dtypes_j}, {"ops", ops_j}, {"definitions", defs}};
}

std::string explain_text() {
  std::string out = "kgo roofline: formulas and counting choices\n\nConventions\n";
  for (const std::string& c : counting_conventions()) out += "  - " + c + "\n";
  out += "\nDtypes (width; peak for elementwise/reduction ops; peak for matmul-like ops)\n";
  for (const DType& d : dtypes()) {
    out += fmt::format("  {:<5} {} B  {:<5} {:<12} {}\n", d.name, d.bytes, d.vector_metric, d.tensor_metric, d.note);
  }
  out += "\nOps\n";
  for (const OpInfo& op : ops()) {
    std::string aliases;
    for (const auto& a : op.aliases) aliases += (aliases.empty() ? " (also " : ", ") + a;
    if (!aliases.empty()) aliases += ")";
    out += fmt::format("  {}{}: {}\n    shape: {}\n    FLOPs: {}\n    bytes: {}\n    choices: {}\n", op.name, aliases,
                       op.summary, op.shape, op.flops, op.bytes, op.choices);
  }
  out += "\nDefinitions\n";
  for (const auto& [k, v] : definitions()) out += fmt::format("  {}: {}\n", k, v);
  return out;
}

}  // namespace kgo::roofline
