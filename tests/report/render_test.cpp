#include "report/report.hpp"

#include <gtest/gtest.h>

#include "report/charts.hpp"
#include "tests/report/report_fixture.hpp"

namespace kgo::report {

TEST(RenderTest, FinalReportHasEverySectionWithCitationsAndTheBestVersion) {
  ReportData d = test::session();
  std::string md = render_final_report(d);
  for (const char* section : {"## Environment (measured)", "## Roofline (cited)", "## Versions (measured)",
                              "## Strategies tried", "## Decisions", "## Best version"}) {
    EXPECT_NE(md.find(section), std::string::npos) << section;
  }
  EXPECT_NE(md.find(d.bandwidth->text), std::string::npos);
  EXPECT_NE(md.find(d.compute->text), std::string::npos);
  EXPECT_NE(md.find("rejected: slower than v0"), std::string::npos);
  EXPECT_NE(md.find("Best version: v2"), std::string::npos) << md;
  EXPECT_NE(md.find("2.00x"), std::string::npos);
  EXPECT_NE(md.find("NVIDIA H200"), std::string::npos);
}

TEST(RenderTest, AbsentFiguresSayNAWithTheirReason) {
  ReportData d = test::session();
  d.best.reset();
  d.compute.reset();
  d.roofline_note = "roofline.json has no compute roof";
  d.versions[1].latency_us.reset();
  d.versions[1].speedup_vs_v0.reset();
  std::string md = render_final_report(d);
  EXPECT_NE(md.find("Roofs: N/A (roofline.json has no compute roof)"), std::string::npos) << md;
  EXPECT_NE(md.find("Best version: N/A (no accepted version with a stamped latency)"), std::string::npos);
  std::string bench = render_benchmark(d);
  EXPECT_NE(bench.find("N/A (not benchmarked)"), std::string::npos) << bench;
  EXPECT_NE(bench.find("N/A: no accepted version with per-size bench data."), std::string::npos);
}

TEST(RenderTest, BenchmarkListsTheBestVersionsSizes) {
  std::string bench = render_benchmark(test::session());
  EXPECT_NE(bench.find("## Per size, best version (measured)"), std::string::npos);
  EXPECT_NE(bench.find("| 1024x1024 | 9.50 | 1.40x | 1.10x"), std::string::npos) << bench;
  EXPECT_NE(bench.find("N/A (baseline not timed)"), std::string::npos);
}

TEST(RenderTest, HtmlPageInlinesTheChartsAndEscapesNames) {
  ReportData d = test::session();
  std::string chart = roofline_svg(d);
  std::string html = render_html(d, {{"roofline", "<?xml version=\"1.0\"?>\n" + chart}});
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("softmax &lt;demo&gt;"), std::string::npos);
  EXPECT_EQ(html.find("softmax <demo>"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"chart\" id=\"roofline\"><svg"), std::string::npos);
  EXPECT_EQ(html.find("<?xml"), std::string::npos);  // the chart is inlined from its <svg> on
  EXPECT_NE(html.find("</html>"), std::string::npos);
}

}  // namespace kgo::report
