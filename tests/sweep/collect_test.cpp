#include "sweep/collect.hpp"

#include <gtest/gtest.h>

#include "tests/sweep/sweep_fixture.hpp"

namespace kgo::sweep {

namespace {

nlohmann::json result(const char* status, const char* verdict, double median_us, const char* gpu) {
  return {{"status", status}, {"verdict", verdict}, {"median_us", median_us}, {"speedup_vs_eager", 1.5},
          {"seconds", 12.5}, {"attempts", 1},
          {"provenance", {{"host", "node1"}, {"kgo_commit", "abc1234"}, {"kernel_sha256", "00ff"},
                          {"gpu", {{"name", gpu}, {"uuid", "GPU-1"}, {"driver_version", "580"}, {"sm_clock_mhz", 1980},
                                   {"mem_clock_mhz", 3201}, {"clock_events", {"sw_power_cap"}}}}}}};
}

}  // namespace

TEST(CollectTest, OneRowPerJobWithItsStatusGpuAndProvenance) {
  kgo::test::TempDir t;
  Sweep s = expand_spec(test::write_spec(t), t / "out");
  save_or_match_plan(s);
  kgo::test::write(s.result_file(0), result("ok", "PASS", 10.0, "NVIDIA H100 80GB HBM3").dump());
  kgo::test::write(s.result_file(1), result("fail", "FAIL", 0, "NVIDIA H100 80GB HBM3").dump());
  kgo::test::write(s.result_file(4), result("ok", "PASS", 9.0, "NVIDIA H100 80GB HBM3").dump());  // an H200 job
  kgo::test::write(s.result_file(2), "{not json");
  Collected c = collect(s);
  ASSERT_EQ(c.rows.size(), 8u);
  EXPECT_EQ(c.counts["ok"], 2);
  EXPECT_EQ(c.counts["fail"], 1);
  EXPECT_EQ(c.counts["error"], 1);  // an unreadable result
  EXPECT_EQ(c.counts["missing"], 4);
  EXPECT_EQ(c.rows[0].clocks, "1980/3201 MHz sw_power_cap");
  EXPECT_FALSE(c.rows[0].platform_mismatch);
  EXPECT_TRUE(c.rows[4].platform_mismatch);  // asked for H200, ran on an H100
  EXPECT_EQ(c.files.size(), 4u);
  for (const auto& f : c.files) EXPECT_TRUE(std::filesystem::exists(f)) << f;
}

TEST(CollectTest, RenderingsCarryEveryRow) {
  kgo::test::TempDir t;
  Sweep s = expand_spec(test::write_spec(t), t / "out");
  kgo::test::write(s.result_file(4), result("ok", "PASS", 9.0, "NVIDIA H100, \"PCIe\"").dump());
  Collected c = collect(s);
  std::string md = render_markdown(c);
  EXPECT_NE(md.find("8 jobs: 1 ok, 0 fail, 0 timeout, 0 error, 7 missing"), std::string::npos) << md;
  EXPECT_NE(md.find("(not H200!)"), std::string::npos);
  std::string csv = render_csv(c);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 9);  // header + 8 rows
  EXPECT_NE(csv.find("\"NVIDIA H100, \"\"PCIe\"\"\""), std::string::npos) << csv;  // quoted per RFC 4180
  std::string svg = render_svg(c);
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_EQ(svg.find("\"PCIe\""), std::string::npos);  // escaped
  nlohmann::json j = to_json(c, true);
  EXPECT_EQ(j["rows"].size(), 8u);
}

}  // namespace kgo::sweep
