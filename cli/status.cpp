// `kgo status [--workspace DIR]`: print the workspace summary.
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/status.hpp"

namespace kgo::cli {

void register_status(CLI::App& app, Context& ctx) {
  CLI::App* sub = app.add_subcommand("status", "Summarize a workspace: configuration, commits, records");
  add_workspace_option(sub, ctx);
  sub->callback([&ctx] {
    core::WorkspaceStatus s = core::workspace_status(workspace_dir(ctx));
    emit(ctx, core::to_json(s), core::render_text(s));
  });
}

}  // namespace kgo::cli
