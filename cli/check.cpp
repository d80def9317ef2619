// `kgo check [--shape S ...] [--trials N] [--device D] ...`: the correctness gate on the workspace
// kernel; exit 0 on PASS, 1 on FAIL / TIMEOUT_FAIL / CRASH (each with its own message).
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "harness/check_workspace.hpp"

namespace kgo::cli {

namespace {

struct CheckOptions {
  harness::CheckWorkspaceOptions opts;
  bool no_record = false;
  bool no_edge_shapes = false;
  bool detail = false;
  CheckTimeouts timeouts;
};

void run_check(const CheckOptions& o, Context& ctx) {
  if (o.opts.settings.trials < 1) throw Error("--trials must be at least 1", ExitCode::usage);
  o.timeouts.require_positive();
  harness::CheckWorkspaceOptions opts = o.opts;
  opts.settings.edge_shapes = !o.no_edge_shapes;
  opts.settings.progress = !ctx.json;
  opts.case_timeout_s = o.timeouts.case_s;
  opts.timeout_s = o.timeouts.total_s;
  opts.record = !o.no_record;
  harness::CheckReport r = harness::check_workspace(workspace_dir(ctx), opts);
  emit(ctx, harness::to_json(r, o.detail), harness::render_check_text(r));
  if (!r.passed()) {
    std::cerr << "kgo: " << harness::verdict_explanation(r) << "\n";
    ctx.exit_code = static_cast<int>(ExitCode::failure);
  }
}

}  // namespace

void register_check(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<CheckOptions>();
  CLI::App* sub = app.add_subcommand("check", "Correctness gate: run the kernel against its reference (PASS/FAIL/TIMEOUT_FAIL/CRASH)");
  sub->add_option("--shape", o->opts.target.shapes, "Shape to test, e.g. 4096x4096 (repeatable; default: the workspace's)");
  sub->add_option("--trials", o->opts.settings.trials, "Fresh random inputs per shape")->capture_default_str();
  add_device_option(sub, o->opts.target.device, "Triton interpreter");
  add_run_options(sub, o->opts.target);
  add_kernel_options(sub, o->opts.target);
  sub->add_option("--atol", o->opts.settings.atol, "Absolute tolerance (overrides ref.py and the dtype default)");
  sub->add_option("--rtol", o->opts.settings.rtol, "Relative tolerance (overrides ref.py and the dtype default)");
  sub->add_option("--max-rel-err", o->opts.settings.max_rel_err, "Largest accepted ||out-ref||/||ref||");
  sub->add_option("--seed", o->opts.settings.seed,
                  "Base random seed of the inputs (default: drawn afresh for each check, so a kernel cannot know it)");
  add_check_timeouts(sub, o->timeouts, "in all");
  sub->add_flag("--no-edge-shapes", o->no_edge_shapes, "Do not add the edge shapes (1, 17, 4097 on the last axis)");
  sub->add_flag("--no-record", o->no_record, "Do not write the result into the memory record");
  sub->add_flag("--detail", o->detail, "--json: every case, every check and the harness result (default: a summary)");
  add_workspace_option(sub, ctx);
  sub->callback([o, &ctx] { run_check(*o, ctx); });
}

}  // namespace kgo::cli
