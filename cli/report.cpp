// `kgo report [--html] [--budget N]`: the final report, benchmark table and charts of a workspace.
#include <memory>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "report/report.hpp"

namespace kgo::cli {

namespace {

struct ReportCliOptions {
  bool html = false;
  std::optional<int> budget;
};

}  // namespace

void register_report(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<ReportCliOptions>();
  CLI::App* cmd = app.add_subcommand("report", "Write report/final_report.md, report/benchmark.md and SVG charts");
  cmd->add_flag("--html", o->html, "Also write report/report.html: one self-contained page with the tables and charts");
  cmd->add_option("--budget", o->budget, "Iteration budget (default: kgo.json max_iterations)")
      ->check(CLI::PositiveNumber);
  add_workspace_option(cmd, ctx);
  cmd->callback([o, &ctx] {
    report::ReportOptions opts;
    opts.budget = o->budget;
    auto r = report::write_report(workspace_dir(ctx), opts, o->html);
    nlohmann::json charts = nlohmann::json::object();
    for (const auto& [path, bytes] : r.chart_bytes) charts[path] = bytes;
    const auto& d = r.data;
    nlohmann::json best = d.best ? nlohmann::json("v" + std::to_string(d.versions[*d.best].n)) : nlohmann::json();
    std::string text = fmt::format("Wrote {} file(s) for {} version(s)\n", r.files.size(), d.versions.size());
    for (const auto& f : r.files) text += "  " + f + "\n";
    text += "  best: " + (d.best ? "v" + std::to_string(d.versions[*d.best].n) : std::string("none")) +
            "; stopping reason: " + d.stopping_reason + "\n";
    text += "  commit " + r.commit.substr(0, 12) + "\n";
    emit(ctx, {{"verb", "report"}, {"files", r.files}, {"commit", r.commit}, {"chart_bytes", charts}, {"versions", d.versions.size()},
               {"best", best}, {"stopping_reason", d.stopping_reason}},
         text);
  });
}

}  // namespace kgo::cli
