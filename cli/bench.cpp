// `kgo bench [--size S ...] [--runs N] [--graph auto|on|off] [--no-compile] ...`: time the workspace
// kernel against PyTorch eager and torch.compile, write benchmark.md, record performance.
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/txn.hpp"
#include "harness/bench.hpp"
#include "harness/record.hpp"
#include "harness/utilization.hpp"

namespace kgo::cli {

namespace {

struct BenchOptions {
  harness::TargetOptions target;
  harness::BenchSettings settings;
  bool no_compile = false, no_eager = false, no_flush = false, no_record = false, quiet = false;
};

void run_bench(const BenchOptions& o, Context& ctx) {
  harness::check_bench_settings(o.settings);
  if (o.settings.graph != "auto" && o.settings.graph != "on" && o.settings.graph != "off") {
    throw Error("--graph must be auto, on or off", ExitCode::usage);
  }
  if (o.settings.size_timeout_s <= 0 || o.settings.total_timeout_s <= 0) {
    throw Error("--size-timeout and --timeout must be positive numbers of seconds", ExitCode::usage);
  }
  std::filesystem::path ws = workspace_dir(ctx);
  core::WorkspaceConfig cfg = core::load_config(ws);
  harness::Target target = harness::workspace_target(ws, cfg, o.target);
  if (o.target.shapes.empty()) {
    target.shapes = harness::default_sizes(cfg.shapes);
    target.shapes_given = false;
  }
  if (target.device == "cpu" && o.target.device == "auto") {
    throw Error("kgo bench times kernels on a GPU and none is visible (the NVIDIA driver lists none, or "
                "CUDA_VISIBLE_DEVICES hides them); run it on a GPU "
                "machine, or pass --device cpu to exercise the path with the Triton interpreter (those times "
                "are not recorded)",
                ExitCode::no_gpu);
  }
  harness::BenchSettings s = o.settings;
  s.compile = !o.no_compile;
  s.eager = !o.no_eager;
  s.flush_l2 = !o.no_flush;
  s.progress = !o.quiet;
  if (!o.quiet) {
    std::cerr << "kgo bench: timing " << target.shapes.size() << " size(s) x " << s.runs << " runs"
              << (s.eager || s.compile ? " plus the PyTorch baselines" : "") << " on " << target.device
              << "; this can take a few minutes\n";
  }
  nlohmann::json work = harness::catalog_work(target.op, target.dtype, target.shapes);
  nlohmann::json ceilings = harness::ceilings_for(
      ws, target.op, target.dtype, target.shapes.empty() ? harness::default_sizes(cfg.shapes) : target.shapes);
  harness::verify_reference_committed(ws, target.reference);
  harness::BenchReport r = harness::run_bench(target, s, work, ceilings);
  r.utilization = harness::utilization_for(ws, r);
  {
    core::LockedWorkspace lock(ws);
    r.report_path = ws / "benchmark.md";
    core::write_file_atomic(r.report_path, harness::render_benchmark_md(r, cfg.name + " (" + cfg.platform + ")"));
  }
  if (o.no_record) r.record_note = "not recorded (--no-record)";
  else harness::record_bench(ws, r);
  emit(ctx, harness::to_json(r), harness::render_bench_text(r));
  if (!r.passed()) {
    std::cerr << "kgo: " << harness::bench_failure_explanation(r) << "\n";
    ctx.exit_code = static_cast<int>(ExitCode::failure);
  }
}

}  // namespace

void register_bench(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* sub = app.add_subcommand("bench", "Time the kernel vs PyTorch eager and torch.compile; write benchmark.md");
  sub->add_option("--size", o->target.shapes, "Size to time, e.g. 4096x4096 (repeatable; default: 256x256 1024x1024 4096x4096, or the workspace's shapes when they are not 2-D)");
  add_timing_options(sub, o->settings);
  sub->add_option("--graph", o->settings.graph, "CUDA-graph mode: auto (launch-bound sizes), on, off")->capture_default_str();
  sub->add_flag("--no-compile", o->no_compile, "Do not time torch.compile of the reference");
  sub->add_flag("--no-eager", o->no_eager, "Do not time PyTorch eager");
  sub->add_option("--warmup", o->settings.warmup, "Warm-up calls before timing (default: the harness's)");
  sub->add_option("--rotate", o->settings.rotate, "Input sets cycled through (default: enough to exceed 2x L2)");
  sub->add_flag("--no-flush-l2", o->no_flush, "Do not flush L2 between samples");
  sub->add_option("--size-timeout", o->settings.size_timeout_s, "Seconds per size")->capture_default_str();
  sub->add_option("--timeout", o->settings.total_timeout_s, "Seconds for the whole run")->capture_default_str();
  add_device_option(sub, o->target.device, "Triton interpreter; not recorded");
  add_run_options(sub, o->target);
  add_kernel_options(sub, o->target);
  sub->add_flag("--no-record", o->no_record, "Do not write performance into the memory record");
  sub->add_flag("--quiet", o->quiet, "No progress lines on stderr");
  add_workspace_option(sub, ctx);
  sub->callback([o, &ctx] { run_bench(*o, ctx); });
}

}  // namespace kgo::cli
