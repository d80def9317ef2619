#include "profiling/ncu_metrics.hpp"

#include <gtest/gtest.h>

#include <set>

#include "tests/profiling/test_data.hpp"

namespace kgo::profiling {

// Every metric kgo requests came back as a column of a real `--set detailed --metrics ...` raw page
// (ncu 2025.3.1 on the H200): the names are valid for Hopper.
TEST(NcuMetricsTest, EveryRequestedMetricIsInARealReport) {
  NcuReport r = parse_ncu_csv(test_data::read("h200_softmax_ncu_raw.csv"));
  ASSERT_EQ(r.page, "raw");
  ASSERT_EQ(r.launches.size(), 1u);
  for (const auto& name : requested_metrics()) {
    EXPECT_TRUE(r.launches[0].metrics.count(name)) << name;
  }
  for (const auto& m : reported_metrics()) {
    EXPECT_TRUE(r.launches[0].metrics.count(m.name)) << m.name;
  }
}

TEST(NcuMetricsTest, CoversKernelOptSkillGroups) {
  std::set<std::string> groups;
  for (const auto& m : reported_metrics()) groups.insert(m.group);
  for (const char* g : {"Speed of Light", "Memory", "Compute", "Occupancy", "Launch", "Scheduler", "Warp stalls",
                        "Divergence", "Shared memory"}) {
    EXPECT_TRUE(groups.count(g)) << g;
  }
  EXPECT_GE(reported_metrics().size(), 41u);
}

TEST(NcuMetricsTest, SummaryAndDetailsRender) {
  NcuReport r = parse_ncu_csv(test_data::read("h200_softmax_ncu_raw.csv"));
  ProfileHeader h;
  h.gpu = "NVIDIA H200";
  h.clock_control = "none";
  h.set = "detailed";
  h.command = "ncu --csv --metrics a,b,c --nvtx python3 x.py";
  std::string s = render_summary(h, r.launches[0], "- bottleneck: **memory**\n");
  EXPECT_NE(s.find("| Kernel | _softmax_rows |"), std::string::npos);
  EXPECT_NE(s.find("--metrics <3 metrics, see ncu_details.md> --nvtx"), std::string::npos);
  EXPECT_NE(s.find("## Speed of Light"), std::string::npos);
  EXPECT_NE(s.find("## Bottleneck verdict"), std::string::npos);
  std::string d = render_details(h, r.launches[0]);
  EXPECT_NE(d.find("## Warp stalls"), std::string::npos);
  EXPECT_NE(d.find("`smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio`"), std::string::npos);
  EXPECT_NE(d.find("## Shared memory"), std::string::npos);
  EXPECT_NE(d.find("device__attribute_* columns are kept in the raw CSV"), std::string::npos);
}

TEST(NcuMetricsTest, ValueFormat) {
  MetricValue big{"3,990,000,000,000", "byte/s", 3.99e12};
  MetricValue small{"82.89", "%", 82.89};
  EXPECT_EQ(format_value(&big), "3.99e+12");
  EXPECT_EQ(format_value(&small), "82.8900");
  EXPECT_EQ(format_value(nullptr), "n/a");
}

}  // namespace kgo::profiling
