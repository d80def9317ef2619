// `kgo baseline`: Stage 1 in one command — check, bench, utilization, baseline_report.md,
// memory/v0.json and the commit `V0: baseline kernel`; commits nothing when a step fails.
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "harness/baseline.hpp"
#include "core/harness_protocol.hpp"

namespace kgo::cli {

namespace {

struct BaselineCliOptions {
  harness::BaselineOptions opts;
  CheckTimeouts timeouts;
  bool no_compile = false, quiet = false, no_edge_shapes = false, detail = false;
};

void run_baseline(const BaselineCliOptions& o, Context& ctx) {
  harness::BaselineOptions opts = o.opts;
  if (opts.check.trials < 1) throw Error("--trials must be at least 1", ExitCode::usage);
  harness::check_bench_settings(opts.bench);
  apply_check_timeouts(o.timeouts, opts.target.device, opts.check);
  opts.check.progress = opts.bench.progress = !o.quiet;
  opts.bench.compile = !o.no_compile;
  opts.check.edge_shapes = !o.no_edge_shapes;
  std::filesystem::path ws = workspace_dir(ctx);
  harness::BaselineReport r = harness::run_baseline(ws, opts);
  emit(ctx, harness::to_json(r, o.detail), harness::render_baseline_text(r));
  if (!r.committed) {
    std::cerr << "kgo: baseline NOT committed: " << r.refused << "; fix it and run kgo baseline again\n";
    ctx.exit_code = static_cast<int>(ExitCode::failure);
  }
}

}  // namespace

void register_baseline(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<BaselineCliOptions>();
  CLI::App* sub = app.add_subcommand("baseline", "Stage 1: check + bench + roofline utilization, baseline_report.md, commit V0");
  sub->add_option("--shape", o->opts.target.shapes, "Check shape (repeatable; default: the workspace's)");
  sub->add_option("--size", o->opts.sizes, "Bench size (repeatable; default: " + std::string(protocol::command_default::bench::shapes_text) + ")");
  sub->add_option("--trials", o->opts.check.trials, "Check trials per shape")->capture_default_str();
  add_timing_options(sub, o->opts.bench);
  sub->add_option("--graph", o->opts.bench.graph, "CUDA-graph mode: auto, on, off")->capture_default_str();
  sub->add_flag("--no-compile", o->no_compile, "Do not time torch.compile of the reference");
  add_device_option(sub, o->opts.target.device, "correctness-only baseline");
  add_run_options(sub, o->opts.target);
  add_kernel_options(sub, o->opts.target);
  sub->add_flag("--no-edge-shapes", o->no_edge_shapes, "Do not add the edge shapes to the check");
  sub->add_option("--atol", o->opts.check.atol, "Absolute tolerance");
  sub->add_option("--rtol", o->opts.check.rtol, "Relative tolerance");
  add_check_timeouts(sub, o->timeouts, "in all");
  sub->add_flag("--quiet", o->quiet, "No progress lines on stderr");
  sub->add_flag("--detail", o->detail, "--json: every check case and the check's and bench's harness results (default: summaries)");
  add_workspace_option(sub, ctx);
  sub->callback([o, &ctx] { run_baseline(*o, ctx); });
}

}  // namespace kgo::cli
