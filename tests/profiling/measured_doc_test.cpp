#include "profiling/measured_doc.hpp"

#include <gtest/gtest.h>

#include "core/files.hpp"
#include "gpu-wiki-index/index.hpp"
#include "tests/test_util.hpp"

namespace kgo::profiling {

TEST(MeasuredDocTest, DisplayUnits) {
  EXPECT_EQ(display_value({"hbm_bandwidth", 4.6781e12, "bytes_per_s", ""}), "4.68 TB/s");
  EXPECT_EQ(display_value({"bf16_tensor", 776.94e12, "flop_per_s", ""}), "776.9 TFLOPS");
  EXPECT_EQ(display_value({"launch_latency", 0.6336e-6, "seconds", ""}), "0.63 us");
}

TEST(MeasuredDocTest, PathNamesProductAndDate) {
  EXPECT_EQ(measured_doc_path("/w", "H100 SXM", "2026-11-20"), std::filesystem::path("/w/measured/H100-SXM-2026-11-20.md"));
}

// The document kgo ceiling --record writes is read back by the wiki index as measured facts.
TEST(MeasuredDocTest, WikiIndexReadsEveryFigureAsMeasured) {
  test::TempDir dir;
  MeasuredDoc doc{"H200", "2026-11-20",
                  "Measured by a test.\n\n```text\nsm clock MHz 1980; 4294967296 bytes per array\n```\n",
                  {{"hbm_bandwidth", 4.678e12, "bytes_per_s", "best pattern: write; median of 20"},
                   {"hbm_bandwidth_copy", 4.263e12, "bytes_per_s", "copy; read+write bytes counted 2 x 4.00 GiB"},
                   {"fp32", 65.1e12, "flop_per_s", "FFMA loop"},
                   {"bf16_tensor", 776.9e12, "flop_per_s", "cuBLAS 8192^3"},
                   {"launch_latency", 0.63e-6, "seconds", "graph"}}};
  std::filesystem::path p = measured_doc_path(dir.path(), doc.product, doc.date);
  test::write(p, render_measured_doc(doc));
  wiki::WikiIndex index = wiki::WikiIndex::build(dir.path());
  EXPECT_TRUE(index.check().empty());
  auto bw = index.find("H200", "hbm_bandwidth", true);
  ASSERT_EQ(bw.size(), 1u);
  EXPECT_TRUE(bw[0].measured);
  EXPECT_DOUBLE_EQ(bw[0].value, 4.68);
  EXPECT_EQ(bw[0].unit, "TB/s");
  EXPECT_EQ(bw[0].file, "measured/H200-2026-11-20.md");
  ASSERT_EQ(index.find("H200", "hbm_bandwidth_copy", true).size(), 1u);
  ASSERT_EQ(index.find("H200", "bf16_tensor", true).size(), 1u);
  EXPECT_DOUBLE_EQ(index.find("H200", "bf16_tensor", true)[0].value, 776.9);
  auto lat = index.find("H200", "launch_latency", true);
  ASSERT_EQ(lat.size(), 1u);
  EXPECT_DOUBLE_EQ(lat[0].value, 0.63);
  EXPECT_TRUE(index.find("H200", "hbm_bandwidth", false).empty());  // not a datasheet fact
}

// The committed H200 document (gpu-wiki-index/wiki/measured/) parses cleanly too.
TEST(MeasuredDocTest, CommittedH200DocumentIndexes) {
  std::filesystem::path doc = std::filesystem::path(KGO_SOURCE_DIR) / "gpu-wiki-index" / "wiki" / "measured" /
                              "H200-2026-11-20.md";
  if (!std::filesystem::exists(doc)) GTEST_SKIP() << "no committed measured document";
  test::TempDir dir;
  test::write(dir / "measured" / "H200-2026-11-20.md", core::read_file(doc));
  wiki::WikiIndex index = wiki::WikiIndex::build(dir.path());
  EXPECT_TRUE(index.check().empty());
  for (const char* m : {"hbm_bandwidth", "hbm_bandwidth_copy", "hbm_bandwidth_read", "hbm_bandwidth_write",
                        "hbm_bandwidth_triad", "fp32", "bf16_tensor", "fp16_tensor", "launch_latency"}) {
    EXPECT_EQ(index.find("H200", m, true).size(), 1u) << m;
  }
}

}  // namespace kgo::profiling
