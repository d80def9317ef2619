// `kgo check [--shape S ...] [--trials N] [--device D] ...`: the correctness gate on the workspace
// kernel; exit 0 on PASS, 1 on FAIL / TIMEOUT_FAIL / CRASH (each with its own message).
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "harness/check.hpp"
#include "harness/record.hpp"

namespace kgo::cli {

namespace {

struct CheckOptions {
  harness::TargetOptions target;
  harness::CheckSettings settings;
  bool no_record = false;
  bool no_edge_shapes = false;
  CheckTimeouts timeouts;
};

void run_check(const CheckOptions& o, Context& ctx) {
  if (o.settings.trials < 1) throw Error("--trials must be at least 1", ExitCode::usage);
  o.timeouts.require_positive();
  std::filesystem::path ws = workspace_dir(ctx);
  core::WorkspaceConfig cfg = core::load_config(ws);
  harness::Target target = harness::workspace_target(ws, cfg, o.target);
  harness::CheckSettings s = o.settings;
  s.edge_shapes = !o.no_edge_shapes;
  s.progress = !ctx.json;
  if (target.device == "cpu" && !ctx.json) {
    std::cerr << "kgo check: " << (o.target.device == "auto" ? "no GPU found; " : "")
              << "running on the CPU with the Triton interpreter (TRITON_INTERPRET=1), default timeouts x"
              << harness::k_cpu_timeout_scale << "; large shapes take minutes (--shape 64x1000 is quick)\n";
  }
  apply_check_timeouts(o.timeouts, target.device, s);
  harness::verify_reference_committed(ws, target.reference);
  harness::CheckReport r = harness::run_check(target, s);
  if (o.no_record) r.record_note = "not recorded (--no-record)";
  else if (r.verdict == "UNTRUSTED") r.record_note = "not recorded: this device cannot vouch for the verdict";
  else harness::record_check(ws, r);
  emit(ctx, harness::to_json(r), harness::render_check_text(r));
  if (!r.passed()) {
    std::cerr << "kgo: " << harness::verdict_explanation(r) << "\n";
    ctx.exit_code = static_cast<int>(ExitCode::failure);
  }
}

}  // namespace

void register_check(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<CheckOptions>();
  CLI::App* sub = app.add_subcommand("check", "Correctness gate: run the kernel against its reference (PASS/FAIL/TIMEOUT_FAIL/CRASH)");
  sub->add_option("--shape", o->target.shapes, "Shape to test, e.g. 4096x4096 (repeatable; default: the workspace's)");
  sub->add_option("--trials", o->settings.trials, "Fresh random inputs per shape")->capture_default_str();
  add_device_option(sub, o->target.device, "Triton interpreter");
  add_run_options(sub, o->target);
  add_kernel_options(sub, o->target);
  sub->add_option("--atol", o->settings.atol, "Absolute tolerance (overrides ref.py and the dtype default)");
  sub->add_option("--rtol", o->settings.rtol, "Relative tolerance (overrides ref.py and the dtype default)");
  sub->add_option("--max-rel-err", o->settings.max_rel_err, "Largest accepted ||out-ref||/||ref||");
  sub->add_option("--seed", o->settings.seed, "Base random seed")->capture_default_str();
  add_check_timeouts(sub, o->timeouts, "in all");
  sub->add_flag("--no-edge-shapes", o->no_edge_shapes, "Do not add the edge shapes (1, 17, 4097 on the last axis)");
  sub->add_flag("--no-record", o->no_record, "Do not write the result into the memory record");
  add_workspace_option(sub, ctx);
  sub->callback([o, &ctx] { run_check(*o, ctx); });
}

}  // namespace kgo::cli
