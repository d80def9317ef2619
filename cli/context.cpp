#include "cli/context.hpp"

#include <iostream>

#include "core/error.hpp"
#include "core/txn.hpp"
#include "core/txn_ops.hpp"
#include "core/workspace.hpp"

namespace kgo::cli {

void announce_recovery() {
  static bool announced = false;
  const auto& r = core::last_recovery();
  if (!r || announced) return;
  announced = true;
  std::cerr << "kgo: finished an interrupted '" << r->op << "': " << r->result.outcome << "\n";
}

nlohmann::json with_recovery(const nlohmann::json& j) {
  const auto& r = core::last_recovery();
  if (!r || !j.is_object() || j.contains("recovered")) return j;
  nlohmann::json out = j;
  out["recovered"] = {{"op", r->op}, {"outcome", r->result.outcome}, {"commits", r->result.commits}};
  return out;
}

void emit(const Context& ctx, const nlohmann::json& j, const std::string& text) {
  announce_recovery();
  if (ctx.json) {
    std::cout << with_recovery(j).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";  // one compact line
  } else {
    std::cout << text;
    if (!text.empty() && text.back() != '\n') std::cout << "\n";
  }
}

void require_known_command(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    if (word.empty() || word[0] == '-') continue;
    std::string names;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      if (sub->check_name(word)) return;
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    throw Error("unknown command '" + word + "'; kgo's commands are: " + names, ExitCode::usage);
  }
}

std::filesystem::path workspace_dir(const Context& ctx) {
  std::filesystem::path ws = core::find_workspace(ctx.workspace);
  // Any command finishes an operation that a crash interrupted before it reads the workspace.
  core::recover_if_interrupted(ws);
  announce_recovery();
  return ws;
}

}  // namespace kgo::cli
