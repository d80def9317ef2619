// `kgo mcp [--workspace DIR] [--timeout-scale X]`: serve kgo's tools over MCP on stdio. The tools' arguments are
// the options the commands declare here in cli/ (command_options reads them off the command tree).
#include <algorithm>
#include <memory>

#include "cli/commands.hpp"
#include "mcp/mcp.hpp"
#include "core/error.hpp"

namespace kgo::cli {

namespace {

// An option's MCP type, from what its parser takes: a flag is a boolean, a repeatable one an array.
std::string type_of(const CLI::Option& o) {
  if (o.get_expected_max() == 0 || o.get_type_size() == 0) return "boolean";
  std::string t = o.get_type_name();
  bool many = o.get_items_expected_max() > 1;
  if (t.rfind("FLOAT", 0) == 0 || t.rfind("NUMBER", 0) == 0) return many ? "number_array" : "number";
  if (many) return "array";
  if (t.rfind("INT", 0) == 0 || t.rfind("UINT", 0) == 0) return "integer";
  return "string";
}

void describe(const CLI::App& app, const std::string& words, mcp::CommandOptions& out) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    std::string path = words.empty() ? sub->get_name() : words + " " + sub->get_name();
    std::vector<mcp::CommandOption>& opts = out[path];
    for (const CLI::Option* o : sub->get_options()) {
      if (o == sub->get_help_ptr()) continue;
      mcp::CommandOption c;
      if (o->get_positional()) {
        c.name = o->get_name();
      } else if (!o->get_lnames().empty()) {
        c.flag = "--" + o->get_lnames().front();
        c.name = o->get_lnames().front();
        std::replace(c.name.begin(), c.name.end(), '-', '_');
      } else {
        continue;  // a short flag alone: no MCP name
      }
      c.type = type_of(*o);
      c.help = o->get_description();
      c.required = o->get_required();
      opts.push_back(std::move(c));
    }
    describe(*sub, path, out);
  }
}

}  // namespace

mcp::CommandOptions command_options(const CLI::App& root) {
  mcp::CommandOptions out;
  describe(root, "", out);
  return out;
}

void register_mcp(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<mcp::ServerOptions>();
  CLI::App* sub = app.add_subcommand("mcp", "Serve kgo's tools to an agent over the Model Context Protocol (stdio)");
  sub->add_option("--workspace", o->workspace, "Default workspace of the workspace tools");
  sub->add_option("--wiki", o->wiki, "gpu-wiki folder passed to the tools that read the wiki");
  sub->add_option("--timeout-scale", o->timeout_scale, "Multiply every tool's time limit")->capture_default_str();
  sub->add_option("--seed-platform", o->seed_platform,
                  "Platform of the scratch workspaces in which the seed's code-string tools judge their code")
      ->capture_default_str();
  sub->callback([o, &ctx, &app] {
    if (o->timeout_scale <= 0) throw Error("--timeout-scale must be positive", ExitCode::usage);
    mcp::set_command_options(command_options(app));
    ctx.exit_code = mcp::serve(*o);
  });
}

}  // namespace kgo::cli
