// `kgo next`: the next step of the workflow for this workspace, with the exact command.
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/workspace.hpp"
#include "iterate/next.hpp"

namespace kgo::cli {

void register_next(CLI::App& app, Context& ctx) {
  CLI::App* sub = app.add_subcommand("next", "The next step of the workflow for this workspace, with the exact command");
  add_workspace_option(sub, ctx);
  sub->callback([&ctx] {
    std::optional<std::filesystem::path> ws;
    try {
      ws = workspace_dir(ctx);
    } catch (const Error& e) {
      if (e.code() != ExitCode::no_workspace) throw;
    }
    iterate::NextStep s = iterate::next_step(ws);
    std::string text = "next: " + s.state + " (" + s.why + ")\n  " + s.command + "\n  workflow: " +
                       iterate::workflow_line() + "\n";
    emit(ctx, iterate::to_json(s), text);
  });
}

}  // namespace kgo::cli
