#pragma once
// `kgo report`: report/final_report.md, report/benchmark.md and report/charts/*.svg (and with
// `html`, report/report.html: one self-contained page with the same tables and charts inline),
// plus a `## Final Report` section in the README linking them, all in one commit. Every field is filled or N/A with
// its reason; hardware numbers appear only with their citations, measured ones labelled measured.
#include <filesystem>
#include <string>
#include <vector>

#include "report/data.hpp"

namespace kgo::report {

struct ReportResult {
  ReportData data;
  std::vector<std::string> files;        // relative to the workspace
  std::vector<std::pair<std::string, size_t>> chart_bytes;
  std::string commit;                    // the commit holding them
};

ReportResult write_report(const fs::path& workspace, const ReportOptions& opts, bool html);

// The markdown documents (pure; exposed for tests).
std::string render_final_report(const ReportData& d);
std::string render_benchmark(const ReportData& d);
std::string render_html(const ReportData& d, const std::vector<std::pair<std::string, std::string>>& charts);

}  // namespace kgo::report
