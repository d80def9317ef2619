// Every kgo command, in help order. One line per command; each lives in cli/<name>.cpp.
#include "cli/commands.hpp"

namespace kgo::cli {

void register_all(CLI::App& app, Context& ctx) {
  register_init(app, ctx);    // create a workspace
  register_status(app, ctx);  // summarize a workspace
  register_env(app, ctx);     // check GPU, driver, toolchain
  register_wiki(app, ctx);    // read the gpu-wiki: products, lookup, check, index
  register_memory(app, ctx);   // iteration records: create, read, update, mask, summary, diff
  register_plan(app, ctx);     // iteration plans: new, check
  register_iterate(app, ctx);  // accept / reject an iteration (commits), verify
  register_restart(app, ctx);  // partial restart: mask about half of the records
  register_roofline(app, ctx);  // roofline targets from registered specs (Stop Conditions)
}

}  // namespace kgo::cli
