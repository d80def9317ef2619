// `kgo bench [--size S ...] [--runs N] [--graph auto|on|off] [--no-compile] ...`: time the workspace
// kernel against PyTorch eager and torch.compile, write benchmark.md, record performance.
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "harness/bench_workspace.hpp"
#include "core/harness_protocol.hpp"

namespace kgo::cli {

namespace {

struct BenchOptions {
  harness::BenchWorkspaceOptions opts;
  bool no_compile = false, no_eager = false, no_flush = false, no_record = false, quiet = false, detail = false;
};

void run_bench(const BenchOptions& o, Context& ctx) {
  harness::BenchWorkspaceOptions opts = o.opts;
  opts.settings.compile = !o.no_compile;
  opts.settings.eager = !o.no_eager;
  opts.settings.flush_l2 = !o.no_flush;
  opts.settings.progress = !o.quiet;
  opts.record = !o.no_record;
  harness::check_bench_workspace_settings(opts.settings);
  harness::BenchReport r = harness::bench_workspace(workspace_dir(ctx), opts);
  emit(ctx, harness::to_json(r, o.detail), harness::render_bench_text(r));
  if (!r.passed()) {
    std::cerr << "kgo: " << harness::bench_failure_explanation(r) << "\n";
    ctx.exit_code = static_cast<int>(ExitCode::failure);
  }
}

}  // namespace

void register_bench(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* sub = app.add_subcommand("bench", "Time the kernel vs PyTorch eager and torch.compile; write benchmark.md");
  sub->add_option("--size", o->opts.target.shapes, "Size to time, e.g. 4096x4096 (repeatable; default: " + std::string(protocol::command_default::bench::shapes_text) +
                      ", or the workspace's shapes when they are not 2-D)");
  add_timing_options(sub, o->opts.settings);
  sub->add_option("--graph", o->opts.settings.graph, "CUDA-graph mode: auto (launch-bound sizes), on, off")->capture_default_str();
  sub->add_flag("--no-compile", o->no_compile, "Do not time torch.compile of the reference");
  sub->add_flag("--no-eager", o->no_eager, "Do not time PyTorch eager");
  sub->add_option("--warmup", o->opts.settings.warmup, "Warm-up calls before timing (default: the harness's)");
  sub->add_option("--rotate", o->opts.settings.rotate, "Input sets cycled through (default: enough to exceed 2x L2)");
  sub->add_flag("--no-flush-l2", o->no_flush, "Do not flush L2 between samples");
  sub->add_option("--size-timeout", o->opts.settings.size_timeout_s, "Seconds per size")->capture_default_str();
  sub->add_option("--timeout", o->opts.settings.total_timeout_s, "Seconds for the whole run")->capture_default_str();
  add_device_option(sub, o->opts.target.device, "Triton interpreter; not recorded");
  add_run_options(sub, o->opts.target);
  add_kernel_options(sub, o->opts.target);
  sub->add_flag("--no-record", o->no_record, "Do not write performance into the memory record");
  sub->add_flag("--quiet", o->quiet, "No progress lines on stderr");
  sub->add_flag("--detail", o->detail, "--json: the harness result (every sample, clocks, method; default: a summary)");
  add_workspace_option(sub, ctx);
  sub->callback([o, &ctx] { run_bench(*o, ctx); });
}

}  // namespace kgo::cli
