#include "cli/context.hpp"

#include <iostream>

#include "core/workspace.hpp"

namespace kgo::cli {

void emit(const Context& ctx, const nlohmann::json& j, const std::string& text) {
  if (ctx.json) {
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << text;
    if (!text.empty() && text.back() != '\n') std::cout << "\n";
  }
}

std::filesystem::path workspace_dir(const Context& ctx) { return core::find_workspace(ctx.workspace); }

}  // namespace kgo::cli
