// `kgo audit [--workspace DIR] [--wiki DIR] [--history]`: re-verify every citation and find
// uncited hardware numbers; exit 0 only when clean.
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "specs/audit.hpp"

namespace kgo::cli {

void register_audit(CLI::App& app, Context& ctx) {
  auto history = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand("audit", "Re-verify every spec citation and find uncited hardware numbers");
  add_workspace_option(sub, ctx);
  sub->add_option("--wiki", ctx.wiki, "gpu-wiki folder (default: the one the workspace recorded)");
  sub->add_flag("--history", *history, "Audit every commit of the workspace's git history too");
  sub->callback([history, &ctx] {
    specs::AuditReport r = specs::audit_workspace(workspace_dir(ctx), ctx.wiki, *history);
    emit(ctx, specs::to_json(r), specs::render_text(r));
    if (!r.clean()) ctx.exit_code = static_cast<int>(ExitCode::audit_findings);
  });
}

}  // namespace kgo::cli
