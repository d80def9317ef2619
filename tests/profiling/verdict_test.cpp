#include "profiling/verdict.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.hpp"
#include "core/files.hpp"

namespace kgo::profiling {

namespace {

std::optional<NcuLaunch> evidence_launch(const std::string& name) {
  auto text = core::try_read_file(std::filesystem::path(KGO_EVIDENCE_DIR) / name);
  if (!text) return std::nullopt;
  NcuReport r = parse_ncu_csv(*text);
  if (r.launches.empty()) return std::nullopt;
  return r.launches[0];
}

SolNumbers sol(double sm, double mem) {
  SolNumbers n;
  n.sm_pct = sm;
  n.memory_pct = mem;
  n.dram_pct = mem;
  n.achieved_occupancy_pct = 80;
  n.theoretical_occupancy_pct = 100;
  return n;
}

}  // namespace

TEST(VerdictTest, RealRawPageIsMemoryBoundByNcuRule) {
  auto l = evidence_launch("h200_ncu2025.3.1_raw_page_trimmed.csv");
  if (!l) GTEST_SKIP() << "evidence CSV not found";
  SolNumbers n = extract_numbers(*l);
  EXPECT_DOUBLE_EQ(*n.sm_pct, 7.33);
  EXPECT_DOUBLE_EQ(*n.memory_pct, 91.23);
  EXPECT_DOUBLE_EQ(*n.dram_pct, 91.23);
  EXPECT_DOUBLE_EQ(*n.achieved_occupancy_pct, 84.57);
  EXPECT_DOUBLE_EQ(*n.theoretical_occupancy_pct, 100);
  EXPECT_DOUBLE_EQ(*n.waves_per_sm, 124.12);
  EXPECT_EQ(n.occupancy_limiter, "registers/warps");  // both allow 16 blocks
  Verdict v = classify(n);
  EXPECT_EQ(v.bottleneck, "memory");
  EXPECT_NE(v.rule.find("ncu SOLBottleneck"), std::string::npos);
  EXPECT_NE(v.rule.find("91.2%"), std::string::npos);
  EXPECT_NE(v.evidence.find("SM throughput 7.3%"), std::string::npos);
  EXPECT_NE(v.action.find("fewer DRAM bytes"), std::string::npos);
  EXPECT_NE(v.chain().find(" -> "), std::string::npos);
}

TEST(VerdictTest, RealDetailsPageGivesTheSameVerdict) {
  auto l = evidence_launch("h200_ncu2025.3.1_details_speedoflight.csv");
  if (!l) GTEST_SKIP() << "evidence CSV not found";
  SolNumbers n = extract_numbers(*l);
  EXPECT_DOUBLE_EQ(*n.memory_pct, 91.14);
  EXPECT_DOUBLE_EQ(*n.l2_pct, 93.71);
  EXPECT_EQ(classify(n).bottleneck, "memory");
}

TEST(VerdictTest, ThresholdsAreConfigurable) {
  auto l = evidence_launch("h200_ncu2025.3.1_raw_page_trimmed.csv");
  if (!l) GTEST_SKIP() << "evidence CSV not found";
  Thresholds t;
  set_threshold(t, "ncu_high=95");
  Verdict v = classify(extract_numbers(*l), t);
  EXPECT_EQ(v.bottleneck, "memory");  // the 60/40 rule still fires: 91.2 leads 7.3 by > 20
  EXPECT_NE(v.rule.find("kernel-opt-skill"), std::string::npos);
  set_threshold(t, "skill_bound=95");
  set_threshold(t, "ncu_low=95");
  v = classify(extract_numbers(*l), t);
  EXPECT_EQ(v.bottleneck, "latency");
  EXPECT_NE(v.rule.find("<95%"), std::string::npos);
}

TEST(VerdictTest, ComputeBoundAndMixed) {
  Verdict v = classify(sol(88, 45));
  EXPECT_EQ(v.bottleneck, "compute");
  EXPECT_NE(v.rule.find(">80%"), std::string::npos);
  v = classify(sol(70, 35));
  EXPECT_EQ(v.bottleneck, "compute");
  EXPECT_NE(v.rule.find("kernel-opt-skill"), std::string::npos);
  v = classify(sol(86, 90));
  EXPECT_EQ(v.bottleneck, "mixed");
  v = classify(sol(65, 55));  // above 60 but no 20-point lead
  EXPECT_EQ(v.bottleneck, "mixed");
  v = classify(sol(45, 90));  // one saturated, the other far below: not mixed
  EXPECT_EQ(v.bottleneck, "memory");
}

TEST(VerdictTest, LatencyRulesNameTheirLine) {
  SolNumbers n = sol(20, 30);
  n.top_stall = "long_scoreboard";
  n.top_stall_ratio = 12;
  Verdict v = classify(n);
  EXPECT_EQ(v.bottleneck, "latency");
  EXPECT_NE(v.rule.find("both SOL <40%"), std::string::npos);
  EXPECT_NE(v.action.find("loads in flight"), std::string::npos);
  v = classify(sol(50, 55));
  EXPECT_EQ(v.bottleneck, "latency");
  EXPECT_NE(v.rule.find("ncu SOLBottleneck: both SOL <60%"), std::string::npos);
}

TEST(VerdictTest, OccupancyBound) {
  SolNumbers n = sol(20, 25);
  n.achieved_occupancy_pct = 30;
  n.theoretical_occupancy_pct = 100;
  n.occupancy_limiter = "registers";
  Verdict v = classify(n);
  EXPECT_EQ(v.bottleneck, "occupancy");
  EXPECT_NE(v.rule.find("0.30"), std::string::npos);
  EXPECT_NE(v.inference.find("registers"), std::string::npos);
  n.achieved_occupancy_pct = 12;
  n.theoretical_occupancy_pct = 12.5;
  EXPECT_EQ(classify(n).bottleneck, "occupancy");
}

TEST(VerdictTest, CacheBoundMemoryIsNotCalledHbm) {
  SolNumbers n = sol(30, 92);
  n.dram_pct = 20;
  Verdict v = classify(n);
  EXPECT_EQ(v.bottleneck, "memory");
  EXPECT_NE(v.inference.find("not HBM"), std::string::npos);
}

TEST(VerdictTest, NoSolNumbersIsUnknown) {
  EXPECT_EQ(classify(SolNumbers{}).bottleneck, "unknown");
}

TEST(VerdictTest, BadThresholdsAreUsageErrors) {
  Thresholds t;
  try {
    set_threshold(t, "bogus=3");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("ncu_high"), std::string::npos);
  }
  EXPECT_THROW(set_threshold(t, "ncu_high=abc"), Error);
  t = thresholds_from_json(nlohmann::json{{"ncu_high", 90}});
  EXPECT_DOUBLE_EQ(t.ncu_high, 90);
  EXPECT_THROW(thresholds_from_json(nlohmann::json{{"ncu_high", "x"}}), Error);
}

}  // namespace kgo::profiling
