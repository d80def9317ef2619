// `kgo status [--part P ...] [--limit N] [--detail] [--workspace DIR]`: print the workspace summary,
// bounded for an agent: at most N of each list, and a note saying what was left out.
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/status.hpp"

namespace kgo::cli {

namespace {

struct StatusOptions {
  std::vector<std::string> parts;
  std::size_t limit = core::k_agent_list_limit;
  bool detail = false;
};

}  // namespace

void register_status(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<StatusOptions>();
  CLI::App* sub = app.add_subcommand("status", "Summarize a workspace: configuration, commits, records");
  sub->add_option("--part", o->parts, "Show only this part: config, commits, records, uncommitted (repeatable)");
  sub->add_option("--limit", o->limit, "At most N newest commits, newest records and changed paths (0: all)")
      ->capture_default_str();
  sub->add_flag("--detail", o->detail, "Everything (same as --limit 0)");
  add_workspace_option(sub, ctx);
  sub->callback([o, &ctx] {
    core::StatusView view{{o->parts.begin(), o->parts.end()}, o->detail ? 0 : o->limit};
    core::WorkspaceStatus s = core::workspace_status(workspace_dir(ctx), view);
    emit(ctx, core::to_json(s), core::render_text(s));
  });
}

}  // namespace kgo::cli
