// `kgo propose [--kernel FILE] [--description TEXT]`: check, bench (GPU), compare with the last
// accepted version, then accept or reject; exit 0 when accepted, 1 when rejected.
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "harness/propose.hpp"

namespace kgo::cli {

void register_propose(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<harness::ProposeRequest>();
  auto kernel = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("propose", "Check, bench (on a GPU) and compare the kernel, then accept or reject it");
  sub->add_option("--kernel", *kernel, "Kernel file to copy over the workspace kernel first");
  sub->add_option("--description", o->description, "What this iteration tried (into the record and the commit)");
  sub->add_option("--shape", o->target.shapes, "Check shape (repeatable; default: the workspace's)");
  add_device_option(sub, o->target.device, "Triton interpreter; checked, not timed");
  add_run_options(sub, o->target);
  add_kernel_options(sub, o->target);
  sub->add_option("--trials", o->trials, "Check trials per shape")->capture_default_str();
  auto no_edge = std::make_shared<bool>(false);
  sub->add_flag("--no-edge-shapes", *no_edge, "Do not add the edge shapes to the check");
  add_workspace_option(sub, ctx);
  sub->callback([o, kernel, no_edge, &ctx] {
    harness::ProposeRequest req = *o;
    req.edge_shapes = !*no_edge;
    if (!kernel->empty()) req.kernel = std::filesystem::absolute(*kernel);
    auto r = harness::propose(workspace_dir(ctx), req);
    emit(ctx, harness::to_json(r),
         r.version + " " + r.verdict + ": " + r.reason + "\n  commit " + r.commit.substr(0, 12) + "\n");
    if (r.verdict != "accepted") ctx.exit_code = static_cast<int>(ExitCode::failure);
  });
}

}  // namespace kgo::cli
