#include "report/report.hpp"

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/txn.hpp"
#include "core/markdown.hpp"
#include "report/charts.hpp"

namespace kgo::report {

ReportResult write_report(const fs::path& ws, const ReportOptions& opts, bool html) {
  core::LockedWorkspace guard(ws);
  ReportResult r;
  r.data = collect(ws, opts);
  std::vector<std::pair<std::string, std::string>> charts = {
      {"roofline", roofline_svg(r.data)}, {"latency", latency_svg(r.data)}, {"speedup", speedup_svg(r.data)}};
  core::TxnCommit c{"", {}, {}};
  for (const auto& [name, svg] : charts) {
    std::string rel = "report/charts/" + name + ".svg";
    c.files.push_back({rel, svg, true});
    r.chart_bytes.push_back({rel, svg.size()});
  }
  c.files.push_back({"report/final_report.md", render_final_report(r.data), true});
  c.files.push_back({"report/benchmark.md", render_benchmark(r.data), true});
  if (html) c.files.push_back({"report/report.html", render_html(r.data, charts), true});
  std::string section =
      "Written by `kgo report`: [final report](report/final_report.md), [benchmark](report/benchmark.md)" +
      std::string(html ? ", [one-page HTML](report/report.html)" : "") +
      ".\n\n![roofline](report/charts/roofline.svg)\n![latency](report/charts/latency.svg)\n"
      "![speedup](report/charts/speedup.svg)\n";
  std::string readme = core::try_read_file(ws / "README.md").value_or("# Kernel Opt Session\n");
  c.files.push_back({"README.md", core::replace_section(readme, "Final Report", section), true});
  for (const auto& f : c.files) r.files.push_back(f.path);
  // Committed, so that an auditor cloning the workspace gets the report and the work tree stays clean.
  c.message = "report: " + std::to_string(r.data.versions.size()) + " version(s), stopping reason: " + r.data.stopping_reason;
  auto t = core::run_transaction(ws, "report", {c});
  if (t.outcome != "completed") throw Error("report did not complete: " + t.outcome, ExitCode::git_error);
  r.commit = t.commits.empty() ? "" : t.commits.front();
  return r;
}

}  // namespace kgo::report
