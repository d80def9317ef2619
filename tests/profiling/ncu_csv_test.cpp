#include "profiling/ncu_csv.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/files.hpp"
#include "tests/profiling/test_data.hpp"

namespace kgo::profiling {

namespace {

// The two real ncu 2025.3.1 CSVs captured on an H200 (shared research evidence, outside the repo).
std::string evidence(const std::string& name) {
  std::filesystem::path p = std::filesystem::path(KGO_EVIDENCE_DIR) / name;
  auto text = core::try_read_file(p);
  return text.value_or("");
}

}  // namespace

TEST(NcuNumberTest, ThousandsSeparatorsAndDecimals) {
  EXPECT_DOUBLE_EQ(*parse_ncu_number("1,089,399"), 1089399);
  EXPECT_DOUBLE_EQ(*parse_ncu_number("3,199,406,586.67"), 3199406586.67);
  EXPECT_DOUBLE_EQ(*parse_ncu_number("91.14"), 91.14);
  EXPECT_DOUBLE_EQ(*parse_ncu_number("-1,234.5"), -1234.5);
  EXPECT_DOUBLE_EQ(*parse_ncu_number("1.089.399,5"), 1089399.5);  // swapped-separator locale
  EXPECT_DOUBLE_EQ(*parse_ncu_number(" 0 "), 0);
}

TEST(NcuNumberTest, RejectsNonNumbers) {
  EXPECT_FALSE(parse_ncu_number(""));
  EXPECT_FALSE(parse_ncu_number("n/a"));
  EXPECT_FALSE(parse_ncu_number("(128, 1, 1)"));
  EXPECT_FALSE(parse_ncu_number("PolicySpread"));
  EXPECT_FALSE(parse_ncu_number("12,34"));  // not groups of three
  EXPECT_FALSE(parse_ncu_number("9.0.1"));
}

TEST(CsvRowsTest, QuotesCommasAndNewlines) {
  auto rows = parse_csv_rows("a,\"b,c\",\"d \"\"e\"\"\"\r\n\"multi\nline\",,x\n");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"a", "b,c", "d \"e\""}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"multi\nline", "", "x"}));
}

TEST(NcuCsvTest, RawPageFromH200) {
  std::string text = evidence("h200_ncu2025.3.1_raw_page_trimmed.csv");
  if (text.empty()) GTEST_SKIP() << "evidence CSV not found under " << KGO_EVIDENCE_DIR;
  NcuReport r = parse_ncu_csv(text);
  EXPECT_EQ(r.page, "raw");
  ASSERT_EQ(r.launches.size(), 1u);
  const NcuLaunch& l = r.launches[0];
  EXPECT_EQ(l.id, 0);
  EXPECT_EQ(l.process_name, "python3.12");
  EXPECT_EQ(l.kernel, "void vectorized_elementwise_kernel<4, CUDAFunctor_add<float>, array<char *, 3>>(int, T2, T3)");
  EXPECT_EQ(l.block, "(128, 1, 1)");
  EXPECT_EQ(l.grid, "(262144, 1, 1)");
  EXPECT_EQ(l.cc, "9.0");
  // Units come from row 2; thousands separators are removed.
  EXPECT_DOUBLE_EQ(*l.number("dram__bytes_read.sum"), 2147501824);
  EXPECT_EQ(l.metrics.at("dram__bytes_read.sum").unit, "byte");
  EXPECT_DOUBLE_EQ(*l.number("dram__bytes_write.sum"), 1055999232);
  EXPECT_DOUBLE_EQ(*l.number("gpu__time_duration.sum"), 729760);
  EXPECT_EQ(l.metrics.at("gpu__time_duration.sum").unit, "ns");
  EXPECT_DOUBLE_EQ(*l.number("sm__throughput.avg.pct_of_peak_sustained_elapsed"), 7.33);
  EXPECT_EQ(l.metrics.at("sm__throughput.avg.pct_of_peak_sustained_elapsed").unit, "%");
  EXPECT_DOUBLE_EQ(*l.number("dram__bytes.sum.peak_sustained"), 1504);
  EXPECT_DOUBLE_EQ(*l.number("launch__grid_size"), 262144);
  // Device attribute columns have no unit and keep their values.
  EXPECT_DOUBLE_EQ(*l.number("device__attribute_global_memory_bus_width"), 6016);
  EXPECT_DOUBLE_EQ(*l.number("device__attribute_l2_cache_size"), 62914560);
  EXPECT_EQ(l.metrics.at("launch__cluster_scheduling_policy").text, "PolicySpread");
  EXPECT_FALSE(l.metrics.at("launch__cluster_scheduling_policy").number);
  EXPECT_EQ(l.metrics.size(), 158u - 11u);
}

TEST(NcuCsvTest, DetailsPageFromH200) {
  std::string text = evidence("h200_ncu2025.3.1_details_speedoflight.csv");
  if (text.empty()) GTEST_SKIP() << "evidence CSV not found under " << KGO_EVIDENCE_DIR;
  NcuReport r = parse_ncu_csv(text);
  EXPECT_EQ(r.page, "details");
  ASSERT_EQ(r.messages.size(), 2u);
  EXPECT_EQ(r.messages[0].rfind("==PROF== Connected to process 1117", 0), 0u);
  ASSERT_EQ(r.launches.size(), 1u);
  const NcuLaunch& l = r.launches[0];
  EXPECT_DOUBLE_EQ(*l.number("GPU Speed Of Light Throughput/Elapsed Cycles"), 1089399);
  EXPECT_DOUBLE_EQ(*l.number("GPU Speed Of Light Throughput/DRAM Frequency"), 3199406586.67);
  EXPECT_EQ(l.metrics.at("GPU Speed Of Light Throughput/DRAM Frequency").unit, "hz");
  // Labels are also reachable under the raw metric names they stand for.
  EXPECT_DOUBLE_EQ(*l.number("sm__throughput.avg.pct_of_peak_sustained_elapsed"), 7.32);
  EXPECT_DOUBLE_EQ(*l.number("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"), 91.14);
  EXPECT_DOUBLE_EQ(*l.number("gpu__time_duration.sum"), 730688);
  ASSERT_EQ(l.rules.size(), 1u);
  EXPECT_EQ(l.rules[0].name, "SOLBottleneck");
  EXPECT_EQ(l.rules[0].type, "INF");
  EXPECT_NE(l.rules[0].description.find("greater than 80.0%"), std::string::npos);
}

// kgo's own ncu output from the H200 run of 2026-11-20 (tests/profiling/data, so this runs in every
// clone): the harness's stdout lines and ==PROF== lines precede the table; rows are named by raw metric.
TEST(NcuCsvTest, KgoHarnessRunOnH200) {
  NcuReport r = parse_ncu_csv(test_data::read("h200_kgo_harness_ncu.csv"));
  EXPECT_EQ(r.page, "details");  // `--metrics` without `--page raw`: section "Command line profiler metrics"
  ASSERT_EQ(r.launches.size(), 8u);
  ASSERT_TRUE(r.launches[0].number("gpu__time_duration.sum"));
  ASSERT_TRUE(r.launches[2].number("gpu__time_duration.sum"));
  EXPECT_EQ(r.launches[0].kernel, "_add_stream");
  EXPECT_EQ(r.launches[0].grid, "(64, 1, 1)");
  EXPECT_DOUBLE_EQ(*r.launches[0].number("gpu__time_duration.sum"), 2784);
  EXPECT_EQ(r.launches[2].kernel, "_softmax_persistent");
  EXPECT_DOUBLE_EQ(*r.launches[2].number("gpu__time_duration.sum"), 128960);
  EXPECT_EQ(r.launches[7].kernel, "_layer_norm_persistent");
  EXPECT_EQ(r.launches[7].cc, "9.0");
  bool saw_prof = false;
  for (const auto& m : r.messages) saw_prof |= m.rfind("==PROF== Connected to process 1420", 0) == 0;
  EXPECT_TRUE(saw_prof);
}

TEST(NcuCsvTest, OddInputGivesNoTableButKeepsMessages) {
  NcuReport r = parse_ncu_csv("==PROF== Connected\n==ERROR== ERR_NVGPUCTRPERM - The user does not have permission\nhello\n");
  EXPECT_EQ(r.page, "");
  EXPECT_TRUE(r.launches.empty());
  ASSERT_EQ(r.messages.size(), 2u);
  EXPECT_NE(r.messages[1].find("ERR_NVGPUCTRPERM"), std::string::npos);
}

TEST(NcuCsvTest, SeveralLaunchesOnTheRawPage) {
  std::string text =
      "ID,Process ID,Process Name,Host Name,Kernel Name,Context,Stream,Block Size,Grid Size,Device,CC,"
      "gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed\n"
      ",,,,,,,,,,,ns,%\n"
      "0,1,p,h,\"setup<float>(int)\",1,7,\"(1, 1, 1)\",\"(1, 1, 1)\",0,9.0,\"2,048\",1.5\n"
      "1,1,p,h,_softmax_rows,1,7,\"(128, 1, 1)\",\"(4096, 1, 1)\",0,9.0,\"35,296\",30.25\n";
  NcuReport r = parse_ncu_csv(text);
  ASSERT_EQ(r.launches.size(), 2u);
  EXPECT_EQ(r.launches[1].kernel, "_softmax_rows");
  EXPECT_EQ(r.launches[1].id, 1);
  EXPECT_DOUBLE_EQ(*r.launches[1].number("gpu__time_duration.sum"), 35296);
}

}  // namespace kgo::profiling
