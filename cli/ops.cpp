// `kgo ops softmax,layernorm,gelu [--dir D]`: the seed's multi-op workflow (four variants per op,
// checks with recorded regenerations, benchmark, best variant, logs). `kgo ops --retry op/variant`
// re-checks one variant the agent regenerated.
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/timing_options.hpp"
#include "core/error.hpp"
#include "harness/ops.hpp"

namespace kgo::cli {

namespace {

struct OpsCliOptions {
  harness::OpsOptions opts;
  std::vector<std::string> ops;
  std::string dir = ".";
  std::optional<double> case_timeout, timeout;
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
  if (o.case_timeout.value_or(1) <= 0 || o.timeout.value_or(1) <= 0 || opts.check.trials < 1) {
    throw Error("--case-timeout, --timeout and --trials must be positive", ExitCode::usage);
  }
  harness::check_bench_settings(opts.bench);
  std::error_code ec;
  std::filesystem::create_directories(o.dir, ec);
  opts.dir = std::filesystem::weakly_canonical(std::filesystem::absolute(o.dir));
  bool cpu = opts.target.device == "cpu";
  opts.check.case_timeout_s = o.case_timeout.value_or(opts.check.case_timeout_s * (cpu ? harness::k_cpu_timeout_scale : 1));
  opts.check.total_timeout_s = o.timeout.value_or(opts.check.total_timeout_s * (cpu ? harness::k_cpu_timeout_scale : 1));
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
  sub->add_option("--device", o->opts.target.device, "cuda, cpu (Triton interpreter; no timing) or auto")->capture_default_str();
  sub->add_option("--python", o->opts.target.python, "Python interpreter (default: $KGO_PYTHON, else python3)");
  sub->add_option("--shape", o->opts.target.shapes, "Check shape (repeatable; default: the op's shapes plus edges)");
  sub->add_option("--size", o->opts.sizes, "Bench size (repeatable; default: 256x256 1024x1024 4096x4096)");
  sub->add_option("--dtype", o->opts.target.dtype, "Data type (default fp32)");
  sub->add_option("--arg", o->opts.target.args, "Extra argument name=value (repeatable)");
  sub->add_option("--trials", o->opts.check.trials, "Check trials per shape")->capture_default_str();
  add_timing_options(sub, o->opts.bench);
  sub->add_flag("--no-compile", o->no_compile, "Do not time torch.compile");
  sub->add_flag("--no-edge-shapes", o->no_edge_shapes, "Do not add the edge shapes to the checks");
  sub->add_option("--case-timeout", o->case_timeout, "Check seconds per case (default 30; x10 on --device cpu)");
  sub->add_option("--timeout", o->timeout, "Check seconds per variant (default 60; x10 on --device cpu)");
  sub->callback([o, &ctx] { run_ops(*o, ctx); });
}

}  // namespace kgo::cli
