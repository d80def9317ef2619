#include "profiling/ceiling.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.hpp"
#include "tests/profiling/test_data.hpp"

namespace kgo::profiling {

// kgo_ceiling's stdout from the H200 run of 2026-11-20 (evidence/profiling-h200-2026-11-20.md).
TEST(CeilingParseTest, RealOutput) {
  CeilingResult r = parse_ceiling_output(test_data::read("h200_kgo_ceiling_stdout.jsonl"));
  EXPECT_EQ(r.device["name"], "NVIDIA H200");
  EXPECT_EQ(r.device["sms"], 132);
  EXPECT_EQ(r.device["array_bytes"], 4294967296ull);
  double best = 0;
  std::string best_metric;
  for (const auto& l : r.lines) {
    if (l.metric.rfind("hbm_bandwidth_", 0) == 0 && l.value > best) {
      best = l.value;
      best_metric = l.metric;
    }
  }
  ASSERT_FALSE(r.figures.empty());
  EXPECT_EQ(r.figures[0].metric, "hbm_bandwidth");
  EXPECT_DOUBLE_EQ(r.figures[0].base_value, best);
  EXPECT_NE(r.figures[0].note.find(best_metric.substr(14)), std::string::npos);
  std::vector<std::string> metrics;
  for (const auto& f : r.figures) {
    metrics.push_back(f.metric);
    EXPECT_EQ(f.note.find('('), std::string::npos) << f.note;
    EXPECT_EQ(f.note.find(')'), std::string::npos) << f.note;
    EXPECT_EQ(f.metric.rfind("info_", 0), std::string::npos);
  }
  for (const char* m : {"hbm_bandwidth_copy", "hbm_bandwidth_read", "hbm_bandwidth_write", "hbm_bandwidth_triad",
                        "fp32", "bf16_tensor", "fp16_tensor", "launch_latency"}) {
    EXPECT_NE(std::find(metrics.begin(), metrics.end(), m), metrics.end()) << m;
  }
  // The bf16 figure is the best of the per-size lines.
  double bf16 = 0;
  for (const auto& l : r.lines) {
    if (l.metric == "info_bf16_tensor_n") bf16 = std::max(bf16, l.value);
  }
  for (const auto& f : r.figures) {
    if (f.metric == "bf16_tensor") {
      EXPECT_DOUBLE_EQ(f.base_value, bf16);
    }
  }
}

TEST(CeilingParseTest, NoDeviceLineIsAnError) {
  try {
    parse_ceiling_output("{\"metric\":\"fp32\",\"value\":1,\"unit\":\"flop_per_s\"}\n");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no device line"), std::string::npos);
  }
}

TEST(CeilingParseTest, IgnoresNoise) {
  CeilingResult r = parse_ceiling_output(
      "warming up\n{\"device\":{\"name\":\"G\",\"cc\":\"9.0\",\"sms\":1}}\n{not json\n"
      "{\"metric\":\"hbm_bandwidth_write\",\"value\":2e12,\"unit\":\"bytes_per_s\",\"note\":\"w (x)\"}\n");
  ASSERT_EQ(r.lines.size(), 1u);
  ASSERT_EQ(r.figures.size(), 2u);  // the pattern and hbm_bandwidth
  EXPECT_EQ(r.figures[1].note, "w x");
}

}  // namespace kgo::profiling
