#pragma once
// The roofline arithmetic: inputs chosen from the workspace spec registry (measured maxima preferred,
// never a built-in number), then per shape the arithmetic intensity, bound, floors (bandwidth,
// compute, launch latency), the target and, given a measured time, whether it was met.
#include <optional>
#include <string>
#include <vector>

#include "roofline/catalog.hpp"
#include "specs/registry.hpp"

namespace kgo::roofline {

struct SpecRef {
  std::string metric;
  double value = 0;      // as cited
  std::string value_text;  // the number as the wiki writes it ("67.0", "1,978.9", "~148")
  std::string unit;      // as cited
  double si_value = 0;   // bytes/s, FLOP/s, s or count
  std::string citation;  // "<gpu-wiki>/path:L37"
  bool measured = false;
  std::string source() const { return measured ? "measured" : "datasheet"; }
  // "3.35 TB/s" as the wiki writes it, and "3.35 TB/s <- <gpu-wiki>/docs/x.md:L37".
  std::string as_written() const;
  std::string cited() const;
};

struct Inputs {
  std::string platform;
  SpecRef bandwidth;                            // hbm_bandwidth (measured preferred)
  std::optional<SpecRef> bandwidth_datasheet;   // the datasheet entry when `bandwidth` is measured
  SpecRef compute;                              // the peak for the op's compute metric
  std::optional<SpecRef> compute_datasheet;
  std::optional<SpecRef> launch_latency;        // measured only
  std::optional<SpecRef> sm_count;              // only needed with --grid
};

// Chooses the inputs from `reg`. Throws Error(missing_spec) naming every missing metric and
// suggesting `kgo spec auto`; there is no fallback value.
Inputs select_inputs(const specs::Registry& reg, const std::string& compute_metric, bool need_sm_count);

// One registered metric, measured preferred (`registered`), or the larger of its measured and datasheet
// values (`highest_registered`: the lenient peak a physical floor needs); nullopt when none is usable.
std::optional<SpecRef> registered(const specs::Registry& reg, const std::string& metric);
std::optional<SpecRef> highest_registered(const specs::Registry& reg, const std::string& metric);

enum class Bound { memory, compute, balanced };
std::string to_string(Bound b);

// "Close to balanced": the smaller of the two floors (bandwidth, compute) is at least 80% of the
// larger, i.e. 0.8 <= AI / ridge <= 1.25. A kgo convention, not a hardware number.
inline constexpr double kBalancedLow = 0.8;
inline constexpr double kBalancedHigh = 1.0 / kBalancedLow;
Bound classify(double ai_over_ridge);

enum class Floor { bandwidth, compute, launch_latency };
std::string to_string(Floor f);

struct Case {
  std::string label;              // "4096x4096" or the custom variables
  std::vector<long long> shape;   // empty for a custom case without a shape
  Work work;
};

struct GridCeiling {
  long long grid = 0;
  long long units = 0;            // SMs / CUs (registered sm_count)
  long long waves = 0;            // ceil(grid / units)
  double unit_utilization = 0;    // min(grid / units, 1)
  double wave_efficiency = 0;     // grid / (waves * units)
  double tile_flops = 0, tile_bytes = 0;
  double tile_floor_s = 0;        // max(tile_flops / (peak / units), tile_bytes / (BW / units))
  double quantized_floor_s = 0;   // waves * tile_floor_s
  double ceiling_bandwidth = 0;   // bytes / quantized_floor_s
  double ceiling_flops = 0;       // flops / quantized_floor_s
};

struct Measurement {
  double time_s = 0;
  std::string source;             // "--time-us" or "memory/v3.json performance.latency_us"
  double achieved_bandwidth = 0;  // bytes / time
  double achieved_flops = 0;      // flops / time
  double pct_of_bandwidth = 0;    // of the bandwidth input
  double pct_of_compute = 0;      // of the compute input
  double pct_of_target = 0;       // target_time / time * 100
  std::optional<double> pct_of_grid_ceiling;
  bool met = false;
};

struct ShapeResult {
  Case c;
  double ai = 0;                  // FLOP/byte
  double ai_over_ridge = 0;
  Bound bound = Bound::memory;
  double memory_floor_s = 0;      // bytes / BW
  double compute_floor_s = 0;     // flops / peak
  double roofline_floor_s = 0;    // max of the two
  std::optional<double> launch_floor_s;
  double time_floor_s = 0;        // max(roofline floor, launch floor)
  Floor governing = Floor::bandwidth;
  double target_time_s = 0;       // time_floor_s / fraction
  double target_bandwidth = 0;    // bytes / target_time_s
  double target_flops = 0;        // flops / target_time_s
  std::optional<GridCeiling> grid;
  std::optional<Measurement> measured;
};

struct Analysis {
  std::string op;                 // catalog name or "custom"
  std::string dtype;
  int dtype_bytes = 0;
  bool matmul_like = false;
  double fraction = 0.9;
  Inputs inputs;
  double ridge = 0;               // peak FLOP/s / BW bytes/s, in FLOP/byte
  std::vector<ShapeResult> shapes;
  // The seed's single figure: fraction x the peak of the largest case's bound, classified as the
  // seed does (AI >= ridge -> compute, else memory).
  Bound seed_bound = Bound::memory;
  double seed_target = 0;         // bytes/s (memory) or FLOP/s (compute)
  bool evaluated = false;         // at least one shape had a measured time
  bool met = false;               // every measured shape met its target
};

struct MeasuredTime {
  double time_s = 0;
  std::string source;
};

// Runs the arithmetic. `times` is empty or has one entry per case (nullopt = not measured).
Analysis analyze(const std::string& op, const DType& dtype, bool matmul_like, std::vector<Case> cases,
                 const Inputs& inputs, double fraction, std::optional<long long> grid,
                 const std::vector<std::optional<MeasuredTime>>& times);

}  // namespace kgo::roofline
