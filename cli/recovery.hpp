#pragma once
// For the commands that read or change iteration state: resolve the workspace and first finish
// an operation a killed kgo left half done (noted on stderr).
#include <filesystem>
#include <iostream>

#include "cli/context.hpp"
#include "core/txn.hpp"

namespace kgo::cli {

inline std::filesystem::path recovered_workspace(const Context& ctx) {
  std::filesystem::path ws = workspace_dir(ctx);
  if (auto r = core::recover_if_interrupted(ws)) {
    std::cerr << "kgo: finished an interrupted '" << r->op << "': " << r->result.outcome << "\n";
  }
  return ws;
}

}  // namespace kgo::cli
