#include "harness/bench.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/memory.hpp"
#include "core/stamp.hpp"
#include "specs/scan.hpp"
#include "tests/test_util.hpp"

namespace kgo::harness {

namespace {

BenchReport report() {
  BenchReport r;
  r.verdict = "PASS";
  r.kernel_sha256 = std::string(64, 'c');
  r.target.device = "cuda";
  r.target.kernel = "/w/kernel.py";
  r.result = nlohmann::json::parse(R"({
    "verdict": "PASS", "final_mean_us": 21.0, "final_median_us": 20.0, "geomean_speedup_vs_eager": 1.5,
    "environment": {"gpu": "NVIDIA H200"},
    "clocks": {"source": "nvidia-smi", "before": {"sm_mhz": 1980, "throttle_names": []}, "after": null},
    "sizes": [
      {"shape": [256, 256], "mode": "graph", "runs": 10, "median_us": 4.0, "median_ci_pct": 0.42, "iqr_us": 0.1, "mean_us": 4.2,
       "eager_us": 5.0, "speedup_vs_eager": 1.25, "achieved_tbps": 0.13, "achieved_tflops": 0.04,
       "samples_us": [4.0, 4.1]},
      {"shape": [4096, 4096], "mode": "events", "runs": 70, "median_us": 36.0, "median_ci_pct": 0.31, "iqr_us": 0.3, "mean_us": 37.8,
       "eager_us": 58.0, "speedup_vs_eager": 1.61, "achieved_tbps": 3.73, "achieved_tflops": 2.33}]})");
  SizeUtilization big;
  big.label = "4096x4096";
  big.bound = "memory";
  big.governing = "bandwidth";
  big.target_time_s = 33e-6;
  big.pct_of_bandwidth = 77.7;
  big.pct_of_compute = 3.5;
  big.pct_of_target = 91.6;
  r.utilization.available = true;
  r.utilization.sizes = {big};
  return r;
}

}  // namespace

TEST(BenchTest, PerformanceValueUsesMediansAndTheLargestSize) {
  auto perf = performance_value(report());
  ASSERT_TRUE(perf);
  EXPECT_DOUBLE_EQ((*perf)["latency_us"].get<double>(), 20.0);
  EXPECT_DOUBLE_EQ((*perf)["latency_us_by_shape"]["256x256"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ((*perf)["latency_us_by_shape"]["4096x4096"].get<double>(), 36.0);
  EXPECT_DOUBLE_EQ((*perf)["bandwidth_gbps"].get<double>(), 3730.0);
  EXPECT_DOUBLE_EQ((*perf)["bandwidth_peak_utilization_pct"].get<double>(), 77.7);
  EXPECT_DOUBLE_EQ((*perf)["bandwidth_target_utilization_pct"].get<double>(), 91.6);
  EXPECT_TRUE((*perf)["tflops_target_utilization_pct"].is_null());
  EXPECT_EQ((*perf)["details"]["headline_size"], "4096x4096");
  EXPECT_DOUBLE_EQ((*perf)["details"]["final_mean_us"].get<double>(), 21.0);
  EXPECT_FALSE((*perf)["details"]["sizes"][0].contains("samples_us"));
}

TEST(BenchTest, PerformanceValueIsAValidRecordField) {
  test::TempDir ws;
  core::ensure_stamp_key(ws.path());  // as workspace_target makes it before the harness runs
  core::create_record(ws.path(), 0);
  core::record_measurement(ws.path(), 0, "performance", *performance_value(report()), std::string(64, 'c'),
                           "kgo bench");
  EXPECT_DOUBLE_EQ(core::read_record(ws.path(), 0)["performance"]["latency_us"].get<double>(), 20.0);
}

TEST(BenchTest, NoLatencyNoPerformance) {
  BenchReport r = report();
  r.result["final_median_us"] = nullptr;
  EXPECT_FALSE(performance_value(r));
}

TEST(BenchTest, OnlyAGpuPassIsRecorded) {
  test::TempDir ws;
  BenchReport cpu = report();
  cpu.target.device = "cpu";
  record_bench(ws.path(), cpu);
  EXPECT_FALSE(cpu.recorded_version);
  EXPECT_NE(cpu.record_note.find("CPU"), std::string::npos);
  BenchReport fail = report();
  fail.verdict = "FAIL";
  record_bench(ws.path(), fail);
  EXPECT_FALSE(fail.recorded_version);
  EXPECT_FALSE(std::filesystem::exists(ws / "memory/v0.json"));
}

TEST(BenchTest, BenchmarkMarkdownHasTheSeedTableAndAggregates) {
  std::string md = render_benchmark_md(report(), "softmax (H200)");
  EXPECT_NE(md.find("# Benchmark: softmax (H200)"), std::string::npos);
  EXPECT_NE(md.find("| 256x256 | graph | 10 | 4.00 | 0.42 | 0.10 | 4.20 | 5.00 |"), std::string::npos);
  EXPECT_NE(md.find("| 4096x4096 | events | 70 | 36.00 | 0.31 |"), std::string::npos);
  EXPECT_NE(md.find("at least 10 runs per size, more until the median's 95% interval is within +-0.5% (at most 200)"),
            std::string::npos);
  EXPECT_NE(md.find("| 77.7 | 91.6 | no (bandwidth floor) |"), std::string::npos);
  EXPECT_NE(md.find("mean of the per-size means): 21.00 us"), std::string::npos);
  EXPECT_NE(md.find("vs eager 1.50x"), std::string::npos);
  EXPECT_NE(md.find("SM 1980 MHz"), std::string::npos);
  EXPECT_EQ(shape_label(nlohmann::json::parse("[3, 4097]")), "3x4097");
}

TEST(DefaultSizes, SeedSizesOnlyWhenTheyFitTheWorkspaceShapes) {
  using Shapes = std::vector<std::vector<long long>>;
  EXPECT_EQ(default_sizes({}), seed_sizes());
  EXPECT_EQ(default_sizes(Shapes{{4096, 4096}}), seed_sizes());
  Shapes gemm{{1024, 1024, 1024}};
  EXPECT_EQ(default_sizes(gemm), gemm);  // a 3-D GEMM is never timed at 256x256
  Shapes vec{{1 << 20}, {1 << 24}};
  EXPECT_EQ(default_sizes(vec), vec);
}

TEST(BenchTest, BenchmarkMdPassesTheAuditsNumberScan) {
  BenchReport r = report();
  r.result["clocks"]["before"] = nlohmann::json::parse(R"({"sm_mhz": 1980, "sm_max_mhz": 1980, "mem_mhz": 3201})");
  r.result["clocks"]["after"] = r.result["clocks"]["before"];
  r.result["environment"]["gpu"] = "NVIDIA H100 80GB HBM3";  // a product name holding a size
  std::string md = render_benchmark_md(r, "softmax (NVIDIA H200)");
  ASSERT_NE(md.find("80GB"), std::string::npos);
  ASSERT_NE(md.find("3201 MHz"), std::string::npos);  // the measured clocks are there ...
  for (const auto& n : specs::scan_markdown(md).uncited) ADD_FAILURE() << n.line << ": " << n.text;  // ... labelled
}

}  // namespace kgo::harness
