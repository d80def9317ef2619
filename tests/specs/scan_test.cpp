#include "specs/scan.hpp"

#include <gtest/gtest.h>

#include <random>

namespace kgo::specs {
namespace {

std::vector<std::string> kinds(const std::string& line) {
  std::vector<std::string> out;
  for (const auto& n : hardware_numbers(line)) out.push_back(n.kind);
  return out;
}

using V = std::vector<std::string>;

TEST(HardwareNumbers, UnitsMakeHardwareNumbers) {
  EXPECT_EQ(kinds("The H100 moves 3.35 TB/s from HBM."), V{"bandwidth"});
  EXPECT_EQ(kinds("peak is 989.4 TFLOPS dense"), V{"flop_rate"});
  EXPECT_EQ(kinds("boost at 1,830 MHz"), V{"clock"});
  EXPECT_EQ(kinds("it has 132 SMs"), V{"count"});
  EXPECT_EQ(kinds("L2 cache of 50 MB"), V{"size"});
  EXPECT_EQ(kinds("shared memory per SM: Up to 228 KB"), V{"size"});
  EXPECT_EQ(kinds("65,536 \xC3\x97 32-bit registers"), V{"registers"});
  EXPECT_EQ(kinds("Max registers per thread: 255"), V{"labelled"});
}

TEST(HardwareNumbers, ScientificNotationAndSpelledOutUnits) {
  EXPECT_EQ(kinds("HBM moves 3.35e12 B/s"), V{"bandwidth"});
  EXPECT_EQ(kinds("peak 9.894E+14 FLOP/s"), V{"flop_rate"});
  EXPECT_EQ(kinds("the H100 reads 3.35 terabytes per second"), V{"bandwidth"});
  EXPECT_EQ(kinds("3,350 Gigabytes per sec of bandwidth"), V{"bandwidth"});
  EXPECT_EQ(kinds("it computes 989 teraflops"), V{"flop_rate"});
  EXPECT_EQ(kinds("clocked at 1.98 gigahertz"), V{"clock"});
  EXPECT_EQ(kinds("an L2 cache of 50 megabytes"), V{"size"});
  EXPECT_EQ(kinds("version 3e12x of the kernel, 2 items per second"), V{});
  auto n = hardware_numbers("HBM moves 3.35e12 B/s");
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0].number, "3.35e12 B/s");
}

TEST(HardwareNumbers, LabelsMakeHardwareNumbers) {
  EXPECT_EQ(kinds("| L2 Cache | 50 |"), V{"labelled"});
  EXPECT_EQ(kinds("| Streaming Multiprocessors (SMs) | 132 |"), V{"labelled"});
  EXPECT_EQ(kinds("sm_count: 132"), V{"labelled"});
  EXPECT_EQ(kinds("bf16_tensor = 989.4"), V{"labelled"});
}

TEST(HardwareNumbers, KernelFactsRatiosAndShapesAreNot) {
  EXPECT_EQ(kinds("tiles of 32 KB each"), V{});
  EXPECT_EQ(kinds("the kernel uses 128 registers per thread"), V{});
  EXPECT_EQ(kinds("speedup 2.1x over eager, 85% of the roofline"), V{});
  EXPECT_EQ(kinds("shape 4096x4096, BLOCK = 128, v3 of sm_90 HBM3"), V{});
  EXPECT_EQ(kinds("latency: 12.5 us"), V{});
}

TEST(ScanMarkdown, NumbersOnCitedLinesAreKeptForTracing) {
  const std::string line = "- bandwidth >= 2.68 TB/s = 0.8 x 3.35 TB/s <- <gpu-wiki>/docs/h.md:L32";
  FileScan s = scan_markdown("# ws\n" + line + "\n- ridge = peak / BW = 67 TFLOPS / 3.35 TB/s = 20 FLOP/byte\n");
  ASSERT_EQ(s.beside_citations.size(), 2u);
  EXPECT_EQ(s.beside_citations[0].value_text, "2.68");
  EXPECT_EQ(s.beside_citations[0].unit, "TB/s");
  EXPECT_EQ(s.beside_citations[0].text, line);
  EXPECT_EQ(line.substr(s.beside_citations[0].begin, s.beside_citations[0].end - s.beside_citations[0].begin),
            "2.68 TB/s");
  EXPECT_EQ(s.beside_citations[1].number, "3.35 TB/s");
  EXPECT_TRUE(hardware_numbers("per-tile floor = max(520602096 FLOPs / (peak / 132), 381300 B / (BW / 132))").empty());
  EXPECT_EQ(hardware_numbers("a peak of 989 TFLOPs").size(), 1u);
  // Line 3 is uncited: its two peaks are hardware numbers, the ratio "20 FLOP/byte" is not.
  ASSERT_EQ(s.uncited.size(), 2u);
  EXPECT_EQ(s.uncited[0].number, "67 TFLOPS");
  EXPECT_EQ(s.uncited[1].number, "3.35 TB/s");
}

TEST(ScanMarkdown, CitedLinesAndMeasurementsAreExempt) {
  const std::string md =
      "# ws\n"                                                        // 1
      "- H100 HBM bandwidth: 3.35 TB/s <- <gpu-wiki>/docs/h.md:L32\n"  // 2 cited
      "- measured copy bandwidth: 2.9 TB/s\n"                          // 3 measured line
      "## Measured results\n"                                          // 4
      "reached 3.0 TB/s\n"                                             // 5 measured section
      "### detail\n"                                                   // 6
      "and 2.8 TB/s\n"                                                 // 7 still inside
      "## Plan\n"                                                      // 8 section ends
      "| shape | Measured TFLOPS |\n"                                   // 9 measured table
      "|---|---|\n"                                                    // 10
      "| 4096 | 612 TFLOPS |\n"                                         // 11
      "\n"                                                             // 12
      "| metric | value |\n"                                           // 13 plain table
      "|---|---|\n"                                                    // 14
      "| HBM bandwidth | 3.35 TB/s |\n"                                // 15 uncited
      "Every number carries a `<gpu-wiki>/path:line` citation.\n";     // 16 placeholder
  FileScan s = scan_markdown(md);
  ASSERT_EQ(s.uncited.size(), 1u);
  EXPECT_EQ(s.uncited[0].line, 15);
  EXPECT_EQ(s.uncited[0].number, "3.35 TB/s");
  ASSERT_EQ(s.citations.size(), 1u);
  EXPECT_EQ(s.citations[0].line, 2);
  ASSERT_TRUE(s.citations[0].match.citation);
  EXPECT_EQ(s.citations[0].match.citation->line, 32);
}

TEST(ScanJson, MeasurementKeysAreExemptAndLinesAreExact) {
  const std::string json = R"({
  "version": "v1",
  "performance": {"bandwidth_gbps": 2900.5, "note": "3.1 TB/s achieved"},
  "environment": {"sm_clock_mhz": 1980},
  "optimization": {
    "expected_impact": "should approach 3.35 TB/s",
    "why": "HBM bandwidth: 3.35 TB/s <- <gpu-wiki>/docs/h.md:L32"
  },
  "hbm_bandwidth_tbps": 3.35,
  "isa_metric_progress": [{"metric": "registers", "target": 128}]
})";
  FileScan s = scan_json(json);
  EXPECT_TRUE(s.error.empty());
  ASSERT_EQ(s.uncited.size(), 2u);
  EXPECT_EQ(s.uncited[0].line, 6);
  EXPECT_EQ(s.uncited[0].number, "3.35 TB/s");
  EXPECT_EQ(s.uncited[1].line, 9);
  EXPECT_EQ(s.uncited[1].kind, "labelled");
  ASSERT_EQ(s.citations.size(), 1u);
  EXPECT_EQ(s.citations[0].line, 7);
}

TEST(ScanJson, InvalidJsonIsScannedAsText) {
  FileScan s = scan_file("memory/v1.json", "{\"a\": \"3.35 TB/s\",,}");
  EXPECT_FALSE(s.error.empty());
  EXPECT_EQ(s.uncited.size(), 1u);
}

TEST(ScanProperty, RandomTextNeverCrashes) {
  std::mt19937 rng(99);
  const std::string alphabet = "0123456789., |:`~x\xC3\x97#-_TBGMKsHzSMCUFLOPmeasurd<>/gpu-wiki{}\"[]\n";
  for (int i = 0; i < 2000; ++i) {
    std::string text;
    for (int k = 0, n = static_cast<int>(rng() % 200); k < n; ++k) text += alphabet[rng() % alphabet.size()];
    if (rng() % 4 == 0) text += "<gpu-wiki>/docs/a.md:L" + std::to_string(rng() % 100);
    FileScan md = scan_markdown(text);
    FileScan js = scan_json(text);
    for (const auto& n : md.uncited) EXPECT_GE(n.line, 1);
    (void)js;
  }
}


TEST(ScanMarkdown, MeasuredExemptionIsAWholeWordWithoutNegation) {
  for (const char* line : {"- unmeasured HBM bandwidth: 3.35 TB/s\n", "- not measured: HBM bandwidth 3.35 TB/s\n",
                           "- HBM bandwidth (never measured) 3.35 TB/s\n", "- non-measured HBM bandwidth: 3.35 TB/s\n",
                           "- this isn't measured: 3.35 TB/s\n", "- measuredly fast: 3.35 TB/s\n"}) {
    EXPECT_EQ(scan_markdown(line).uncited.size(), 1u) << line;
  }
  for (const char* line : {"- measured copy bandwidth: 2.9 TB/s\n", "- HBM (Measurement, copy): 2.9 TB/s\n",
                           "- from measurements: 2.9 TB/s\n"}) {
    EXPECT_TRUE(scan_markdown(line).uncited.empty()) << line;
  }
}
}  // namespace
}  // namespace kgo::specs
