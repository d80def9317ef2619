#pragma once
// The Nsight Compute metrics kgo asks for and reports, grouped as ncu_details.md shows them:
// speed-of-light, memory, compute, occupancy, launch, scheduler, warp stalls, divergence and
// shared memory. A superset of kernel-opt-skill's 41-metric list (seed-anchors.md §1.4).
#include <string>
#include <vector>

#include "profiling/ncu_csv.hpp"

namespace kgo::profiling {

struct MetricSpec {
  std::string group;   // "Speed of Light", "Memory", ...
  std::string name;    // raw ncu metric name
  std::string label;   // human label
  bool summary = false;  // also shown in ncu_summary.md
};

const std::vector<MetricSpec>& reported_metrics();

// Names to pass with `--metrics` on top of the chosen `--set` (launch__* and device attributes
// come with every raw page and are not requested).
std::vector<std::string> requested_metrics();

// "1.23e+09" for large values, "91.2300" otherwise (kernel-opt-skill's summary format), "n/a".
std::string format_value(const MetricValue* v);

struct ProfileHeader {
  std::string kernel;
  std::string gpu;           // e.g. "NVIDIA H200" when known
  std::string cc;
  std::string block, grid;
  std::string clock_control; // "none" or "base"
  std::string ncu_version;
  std::string command;       // the ncu command line, shell-quoted
  std::string set;
};

// ncu_summary.md: header table and the summary metrics per group, then the verdict chain.
std::string render_summary(const ProfileHeader& h, const NcuLaunch& l, const std::string& verdict_md);
// ncu_details.md: every reported metric per group with unit and raw name, then every other
// metric of the launch (alphabetical), and ncu's own rule messages when present.
std::string render_details(const ProfileHeader& h, const NcuLaunch& l);

}  // namespace kgo::profiling
