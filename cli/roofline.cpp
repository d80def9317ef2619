// `kgo roofline [--op OP] [--shape S ...] [--dtype D] [--flops E --bytes E] [--fraction F]
// [--time-us T ... | --from-memory vN] [--grid N] [--explain]`: roofline targets from registered
// specs, written into the workspace README and roofline.json; with a measured time, exit 0 when
// every target is met and 2 when one is missed.
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "roofline/render.hpp"
#include "roofline/run.hpp"
#include "core/harness_protocol.hpp"

namespace kgo::cli {

namespace {

struct RooflineCliOptions {
  roofline::RooflineOptions run;
  bool explain = false;
};

void run_roofline_cmd(const RooflineCliOptions& o, Context& ctx) {
  if (o.explain) {
    emit(ctx, nlohmann::json{{"explain", roofline::explain_json()}}, roofline::explain_text());
    return;
  }
  roofline::RooflineRun r = roofline::run_roofline(workspace_dir(ctx), o.run);
  nlohmann::json j = {{"workspace", r.workspace.string()},
                      {"wrote", r.wrote},
                      {"up_to_date", r.up_to_date},
                      {"written", r.wrote ? nlohmann::json{"README.md", "roofline.json"} : nlohmann::json::array()},
                      {"commit", r.commit ? nlohmann::json(*r.commit) : nlohmann::json(nullptr)},
                      {"roofline", r.document}};
  std::string text = roofline::render_text(r.analysis);
  if (r.up_to_date) {
    text += "README.md and roofline.json already hold this analysis: nothing written\n";
  } else if (r.wrote) {
    text += "wrote " + (r.workspace / "README.md").string() +
            " (Roofline Analysis, Stop Conditions, ISA Optimization Targets) and " +
            (r.workspace / "roofline.json").string() + (r.commit ? "; commit " + r.commit->substr(0, 12) : "") + "\n";
  }
  emit(ctx, j, text);
  if (r.analysis.evaluated && !r.analysis.met) {
    std::string missed;
    for (const auto& s : r.analysis.shapes) {
      if (s.measured && !s.measured->met) missed += (missed.empty() ? "" : ", ") + s.c.label;
    }
    std::cerr << "kgo: target missed for " << missed << " (see the measured lines above)\n";
    ctx.exit_code = static_cast<int>(ExitCode::target_missed);
  }
}

}  // namespace

void register_roofline(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<RooflineCliOptions>();
  CLI::App* sub = app.add_subcommand(
      "roofline", "Roofline bound, time floors and per-shape targets from registered specs (Stop Conditions)");
  roofline::RooflineOptions& r = o->run;
  sub->add_option("--op", r.op, "Catalog op: add, softmax, layer_norm, matmul, bmm, attention, ... "
                                "(see --explain)");
  sub->add_option("--shape", r.shapes, "Shape such as 4096x4096 (repeatable; default: the workspace's, else " +
                                       std::string(protocol::command_default::bench::shapes_text) + ")");
  sub->add_option("--dtype", r.dtype, "fp64, fp32, tf32, fp16, bf16, fp8 or int8 (default: the workspace's)");
  sub->add_option("--flops", r.flops_expr, "FLOPs of a custom kernel as an expression, e.g. '2*M*N*K'");
  sub->add_option("--bytes", r.bytes_expr, "Bytes of a custom kernel as an expression, e.g. '(M*K+K*N+M*N)*2'");
  sub->add_option("--var", r.vars, "Variable for --flops/--bytes, NAME=VALUE (repeatable)");
  sub->add_option("--peak", r.peak_metric, "Compute metric to use as the peak (e.g. bf16_tensor)");
  sub->add_option("--fraction", r.fraction, "Target as a fraction of peak")->capture_default_str();
  sub->add_option("--time-us", r.time_us, "Measured time in microseconds, one per shape (checks; writes nothing)");
  sub->add_flag("--dry-run", r.dry_run, "Compute and print the analysis; write and commit nothing");
  sub->add_option("--from-memory", r.from_memory, "Read measured latency from memory/vN.json (checks; writes nothing)");
  sub->add_option("--grid", r.grid, "Grid size in blocks: wave-quantized ceiling and per-tile floor");
  sub->add_flag("--explain", o->explain, "Print every formula and counting choice, then exit");
  add_workspace_option(sub, ctx);
  sub->callback([o, &ctx] { run_roofline_cmd(*o, ctx); });
}

}  // namespace kgo::cli
