#include "report/svg.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace kgo::report {

TEST(SvgTest, EscapesEveryTextAndTitle) {
  EXPECT_EQ(xml_escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; 'd'&gt;");  // attributes are double-quoted
  Svg s(200, 100, "x < y & z");
  s.text(10, 10, "<script>alert(1)</script>");
  std::string out = s.str();
  EXPECT_EQ(out.find("<script>"), std::string::npos);
  EXPECT_NE(out.find("&lt;script&gt;"), std::string::npos);
  EXPECT_NE(out.find("x &lt; y &amp; z"), std::string::npos);
  EXPECT_NE(out.find("<svg"), std::string::npos);
  EXPECT_NE(out.find("</svg>"), std::string::npos);
}

TEST(SvgTest, LogAxesTickAtDecadesAndLinearOnesAtRoundSteps) {
  std::vector<double> log_ticks = ticks(Axis{0.01, 1000, true, "x"});
  ASSERT_FALSE(log_ticks.empty());
  for (double t : log_ticks) {
    double decade = std::log10(t);
    EXPECT_NEAR(decade, std::round(decade), 1e-9) << t;
  }
  EXPECT_DOUBLE_EQ(log_ticks.front(), 0.01);
  EXPECT_DOUBLE_EQ(log_ticks.back(), 1000);
  std::vector<double> lin = ticks(Axis{0, 100, false, "us"});
  EXPECT_GE(lin.size(), 4u);
  EXPECT_LE(lin.size(), 12u);
  for (size_t i = 1; i < lin.size(); ++i) EXPECT_NEAR(lin[i] - lin[i - 1], lin[1] - lin[0], 1e-9);
}

TEST(SvgTest, TickLabelsAreCompact) {
  EXPECT_EQ(tick_label(0), "0");
  EXPECT_EQ(tick_label(0.5), "0.5");
  EXPECT_EQ(tick_label(10), "10");
  EXPECT_EQ(tick_label(1000), "1k");
  EXPECT_EQ(tick_label(2.5e6), "2.5M");
  EXPECT_EQ(tick_label(4.8e12), "4800G");
}

TEST(SvgTest, DataMapsIntoThePlotAreaWithYUp) {
  Svg s(400, 300, "t");
  s.frame(Axis{0, 10, false, "x"}, Axis{1, 100, true, "y"});
  EXPECT_DOUBLE_EQ(s.px(0), s.left);
  EXPECT_DOUBLE_EQ(s.px(10), 400 - s.right);
  EXPECT_DOUBLE_EQ(s.py(1), 300 - s.bottom);
  EXPECT_DOUBLE_EQ(s.py(100), s.top);
  EXPECT_NEAR(s.py(10), (s.py(1) + s.py(100)) / 2, 1e-9);  // log axis: a decade is half of two
}

}  // namespace kgo::report
