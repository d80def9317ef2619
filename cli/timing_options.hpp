#pragma once
// The timing options shared by `kgo bench`, `kgo baseline` and `kgo ops`.
#include <CLI/CLI.hpp>

#include "harness/bench.hpp"

namespace kgo::cli {

inline void add_timing_options(CLI::App* sub, harness::BenchSettings& s) {
  sub->add_option("--runs", s.runs, "Timed runs per size (the minimum)")->capture_default_str();
  sub->add_option("--precision", s.precision_pct,
                  "Then time more until the median's 95% interval is within +-this % (0: exactly --runs)")
      ->capture_default_str();
  sub->add_option("--max-runs", s.max_runs, "Most timed runs per size")->capture_default_str();
}

}  // namespace kgo::cli
