// Every kgo command, in help order. One line per command; each lives in cli/<name>.cpp.
#include "cli/commands.hpp"

namespace kgo::cli {

void register_all(CLI::App& app, Context& ctx) {
  register_init(app, ctx);    // create a workspace
  register_status(app, ctx);  // summarize a workspace
}

}  // namespace kgo::cli
