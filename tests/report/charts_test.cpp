#include "report/charts.hpp"

#include <gtest/gtest.h>

#include "report/svg.hpp"
#include "tests/report/report_fixture.hpp"

namespace kgo::report {

namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST(ChartsTest, RooflineCarriesBothCitedRoofsTheRidgeAndAPointPerMeasuredVersion) {
  ReportData d = test::session();
  std::string svg = roofline_svg(d);
  EXPECT_NE(svg.find("memory roof " + xml_escape(d.bandwidth->text)), std::string::npos);
  EXPECT_NE(svg.find("compute roof " + xml_escape(d.compute->text)), std::string::npos);
  EXPECT_NE(svg.find("ridge 14 FLOP/byte"), std::string::npos) << svg;
  for (const char* v : {">v0<", ">v1<", ">v2<"}) EXPECT_NE(svg.find(v), std::string::npos) << v;
  EXPECT_EQ(count(svg, "<circle"), 3u);
}

TEST(ChartsTest, ARooflinePointIsTheBenchedFlopsAtTheHeadlineOrTheProfiledIntensity) {
  ReportData d = test::session();
  auto p = roofline_point(d, d.versions[2]);
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(p->ai, 0.6);
  EXPECT_NEAR(p->flops, 8.0e7 / 60e-6, 1);
  EXPECT_FALSE(p->measured_ai);
  d.versions[2].measured_ai = 0.5;  // ncu's DRAM bytes, of about the headline's size: they win
  p = roofline_point(d, d.versions[2]);
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(p->ai, 0.5);
  EXPECT_TRUE(p->measured_ai);
  d.versions[2].measured_ai = 5.0;  // a profile of another size (over 2x off): not this problem's intensity
  p = roofline_point(d, d.versions[2]);
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(p->ai, 0.6);
  d.versions[2].achieved_flops.reset();
  d.versions[2].achieved_bytes_per_s = 2.0e12;  // only bytes/s: FLOP/s through the headline intensity
  p = roofline_point(d, d.versions[2]);
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(p->flops, 2.0e12 * 0.6);
  d.versions[2].achieved_bytes_per_s.reset();
  EXPECT_FALSE(roofline_point(d, d.versions[2]));
}

TEST(ChartsTest, WithoutCitedRoofsTheRooflineSaysWhyInsteadOfDrawingOne) {
  ReportData d = test::session();
  d.bandwidth.reset();
  d.roofline_note = "no roofline.json: run kgo roofline";
  std::string svg = roofline_svg(d);
  EXPECT_NE(svg.find("N/A: no roofline.json: run kgo roofline"), std::string::npos);
  EXPECT_EQ(svg.find("<circle"), std::string::npos);
}

TEST(ChartsTest, LatencyHasABarPerBenchedVersionAndSaysWhyWhenNoneIs) {
  ReportData d = test::session();
  std::string svg = latency_svg(d);
  for (const char* label : {">v0<", ">v1<", ">v2<"}) EXPECT_NE(svg.find(label), std::string::npos) << label;
  for (auto& v : d.versions) v.latency_us.reset();
  EXPECT_NE(latency_svg(d).find("N/A: no version has a stamped latency"), std::string::npos);
}

TEST(ChartsTest, SpeedupShowsTheBestVersionsSizesAndMarksAnUntimedBaseline) {
  ReportData d = test::session();
  std::string svg = speedup_svg(d);
  EXPECT_NE(svg.find(">1024x1024<"), std::string::npos);
  EXPECT_NE(svg.find(">4096x4096<"), std::string::npos);
  EXPECT_NE(svg.find(">1.40x<"), std::string::npos);
  EXPECT_NE(svg.find(">2.10x<"), std::string::npos);
  EXPECT_NE(svg.find(">n/a<"), std::string::npos);  // 4096x4096 has no torch.compile time
  d.best.reset();
  EXPECT_NE(speedup_svg(d).find("N/A: no accepted version"), std::string::npos);
}

}  // namespace kgo::report
