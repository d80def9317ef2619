// `kgo ops softmax,layernorm,gelu [--dir D]`: the seed's multi-op workflow (four variants per op,
// checks with recorded regenerations, benchmark, best variant, logs). `kgo ops --retry op/variant`
// re-checks one variant the agent regenerated.
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "harness/ops.hpp"
#include "core/harness_protocol.hpp"

namespace kgo::cli {

namespace {

struct OpsCliOptions {
  harness::OpsOptions opts;
  std::vector<std::string> ops;
  std::string dir = ".";
  CheckTimeouts timeouts;
  bool no_compile = false, no_edge_shapes = false;
};

std::vector<std::string> split_ops(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const auto& a : args) {
    std::stringstream ss(a);
    for (std::string item; std::getline(ss, item, ',');) {
      item.erase(0, item.find_first_not_of(' '));
      item.erase(item.find_last_not_of(' ') + 1);
      if (!item.empty()) out.push_back(item);
    }
  }
  return out;
}

void run_ops(const OpsCliOptions& o, Context& ctx) {
  harness::OpsOptions opts = o.opts;
  opts.ops = split_ops(o.ops);
  if (opts.retry && !opts.ops.empty()) {
    throw Error("give either op names or --retry <op>/<variant>, not both", ExitCode::usage);
  }
  if (opts.check.trials < 1) throw Error("--trials must be at least 1", ExitCode::usage);
  o.timeouts.require_positive();
  harness::check_bench_settings(opts.bench);
  std::error_code ec;
  std::filesystem::create_directories(o.dir, ec);
  opts.dir = std::filesystem::weakly_canonical(std::filesystem::absolute(o.dir));
  apply_check_timeouts(o.timeouts, opts.target.device, opts.check);
  opts.check.edge_shapes = !o.no_edge_shapes;
  opts.bench.compile = !o.no_compile;
  std::string cmd = "kgo ops";
  for (const auto& op : o.ops) cmd += " " + op;
  if (opts.retry) cmd += " --retry " + *opts.retry;
  opts.command = cmd;
  harness::OpsReport r = harness::run_ops(opts);
  emit(ctx, harness::to_json(r), harness::render_ops_text(r));
  if (!r.all_correct()) {
    int bad = 0;
    for (const auto& op : r.ops) {
      for (const auto& v : op.variants) bad += v.status != "PASS";
    }
    std::cerr << "kgo: " << bad << " variant(s) are not correct; regenerate each one listed with its retry command "
              << "(at most " << opts.max_retries << " retries per variant)\n";
    ctx.exit_code = static_cast<int>(ExitCode::failure);
  }
}

}  // namespace

void register_ops(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<OpsCliOptions>();
  CLI::App* sub = app.add_subcommand("ops", "Seed multi-op workflow: 4 Triton variants per op, check, retries, bench, best, logs");
  sub->add_option("ops", o->ops, "Ops, comma-separated (softmax,layernorm,gelu)");
  sub->add_option("--dir", o->dir, "Folder for kernels/ and logs/ (default: the current directory)");
  sub->add_option("--retry", o->opts.retry, "Re-check one regenerated variant: <op>/<variant> (e.g. softmax/v2_tiling)");
  sub->add_option("--max-retries", o->opts.max_retries, "Regenerations allowed per variant")->capture_default_str();
  add_device_option(sub, o->opts.target.device, "Triton interpreter; no timing");
  add_run_options(sub, o->opts.target);
  sub->add_option("--shape", o->opts.target.shapes, "Check shape (repeatable; default: the op's shapes plus edges)");
  sub->add_option("--size", o->opts.sizes, "Bench size (repeatable; default: " + std::string(protocol::command_default::bench::shapes_text) + ")");
  sub->add_option("--trials", o->opts.check.trials, "Check trials per shape")->capture_default_str();
  add_timing_options(sub, o->opts.bench);
  sub->add_flag("--no-compile", o->no_compile, "Do not time torch.compile");
  sub->add_flag("--no-edge-shapes", o->no_edge_shapes, "Do not add the edge shapes to the checks");
  add_check_timeouts(sub, o->timeouts, "per variant");
  sub->callback([o, &ctx] { run_ops(*o, ctx); });
}

}  // namespace kgo::cli
