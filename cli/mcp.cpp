// `kgo mcp [--workspace DIR] [--timeout-scale X]`: serve kgo's tools over MCP on stdio.
#include <memory>

#include "cli/commands.hpp"
#include "mcp/mcp.hpp"
#include "core/error.hpp"

namespace kgo::cli {

void register_mcp(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<mcp::ServerOptions>();
  CLI::App* sub = app.add_subcommand("mcp", "Serve kgo's tools to an agent over the Model Context Protocol (stdio)");
  sub->add_option("--workspace", o->workspace, "Default workspace of the workspace tools");
  sub->add_option("--wiki", o->wiki, "gpu-wiki folder passed to the tools that read the wiki");
  sub->add_option("--timeout-scale", o->timeout_scale, "Multiply every tool's time limit")->capture_default_str();
  sub->add_option("--seed-platform", o->seed_platform,
                  "Platform of the scratch workspaces in which the seed's code-string tools judge their code")
      ->capture_default_str();
  sub->callback([o, &ctx] {
    if (o->timeout_scale <= 0) throw Error("--timeout-scale must be positive", ExitCode::usage);
    ctx.exit_code = mcp::serve(*o);
  });
}

}  // namespace kgo::cli
