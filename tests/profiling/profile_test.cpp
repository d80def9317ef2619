#include "profiling/profile.hpp"

#include <gtest/gtest.h>

#include "tests/profiling/test_data.hpp"

namespace kgo::profiling {

namespace {

Verdict verdict_of(const std::string& file, SolNumbers* out = nullptr) {
  NcuReport r = parse_ncu_csv(test_data::read(file));
  EXPECT_EQ(r.launches.size(), 1u);
  SolNumbers n = extract_numbers(r.launches.at(0));
  if (out) *out = n;
  return classify(n);
}

}  // namespace

// The three H200 profiles of 2026-11-20 (--set detailed plus kgo's metrics).
TEST(H200VerdictTest, SoftmaxIsMemoryBound) {
  SolNumbers n;
  Verdict v = verdict_of("h200_softmax_ncu_raw.csv", &n);
  EXPECT_EQ(v.bottleneck, "memory");
  EXPECT_NE(v.rule.find("ncu SOLBottleneck"), std::string::npos);
  EXPECT_EQ(n.top_stall, "long_scoreboard");  // waiting on global memory
  EXPECT_GT(*n.dram_pct, *n.sm_pct);
}

TEST(H200VerdictTest, TritonBf16MatmulIsComputeBound) {
  SolNumbers n;
  Verdict v = verdict_of("h200_matmul_ncu_raw.csv", &n);
  EXPECT_EQ(v.bottleneck, "compute");
  EXPECT_GT(*n.tensor_pipe_pct, 80);
  EXPECT_NE(v.action.find("tensor pipe"), std::string::npos);
}

TEST(H200VerdictTest, CublasSaturatesTensorPipeAndL1) {
  SolNumbers n;
  Verdict v = verdict_of("h200_cublas_ncu_raw.csv", &n);
  EXPECT_EQ(v.bottleneck, "mixed");
  EXPECT_NE(v.inference.find("L1/shared"), std::string::npos);
  EXPECT_EQ(n.top_stall, "gmma");
}

TEST(ChooseLaunchTest, PrefersTheHarnessKernelThenTheLongest) {
  std::vector<LaunchInfo> l = {{0, "distribution_elementwise_grid_stride_kernel", 900000.0},
                               {1, "_softmax_rows", 120000.0},
                               {2, "_softmax_rows", 128000.0},
                               {3, "vectorized_elementwise_kernel", 5000.0}};
  EXPECT_EQ(*choose_launch(l, {"_softmax_rows"}), 2u);
  EXPECT_EQ(*choose_launch(l, {}), 0u);
  EXPECT_EQ(*choose_launch(l, {"not_launched"}), 0u);
  EXPECT_FALSE(choose_launch({}, {}));
}

TEST(ProfileEvidenceTest, MatchesTheRecordSchemaShape) {
  ProfileResult r;
  r.ncu_version = "2025.3.1.0";
  r.set = "detailed";
  r.chosen = LaunchInfo{0, "_softmax_rows", 128064.0};
  r.verdict = verdict_of("h200_softmax_ncu_raw.csv");
  nlohmann::json e = profile_evidence(r);
  EXPECT_EQ(e["bottleneck_type"], "memory_bound");
  EXPECT_EQ(e["tool_used"], "ncu 2025.3.1.0 --set detailed --clock-control none");
  ASSERT_EQ(e["evidence_chain"].size(), 1u);
  for (const char* k : {"evidence", "inference", "action"}) EXPECT_FALSE(e["evidence_chain"][0][k].get<std::string>().empty());
  EXPECT_NE(e["evidence_summary"].get<std::string>().find("128.06 us"), std::string::npos);
  r.counters = false;
  r.chosen.reset();
  r.verdict.bottleneck = "unknown";
  EXPECT_EQ(profile_evidence(r)["bottleneck_type"], "unknown");
  EXPECT_NE(profile_evidence(r)["tool_used"].get<std::string>().find("timing-only"), std::string::npos);
}

}  // namespace kgo::profiling
