// `kgo restart [--seed S] [--reason TEXT]`: the partial restart (mask about half of the records).
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/memory.hpp"
#include "iterate/restart.hpp"

namespace kgo::cli {

namespace {

struct RestartOptions {
  std::optional<std::uint64_t> seed;
  std::string reason;
};

nlohmann::json names(const std::vector<int>& versions) {
  nlohmann::json j = nlohmann::json::array();
  for (int n : versions) j.push_back(core::version_name(n));
  return j;
}

}  // namespace

void register_restart(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<RestartOptions>();
  CLI::App* sub = app.add_subcommand(
      "restart", "Partial restart: mask about half of the unmasked records (never v0 or the best), seeded, committed");
  sub->add_option("--seed", o->seed, "Seed of the choice (default: random; printed and recorded)");
  sub->add_option("--reason", o->reason, "Why the optimization is restarting");
  add_workspace_option(sub, ctx);
  sub->callback([o, &ctx] {
    auto r = iterate::partial_restart(workspace_dir(ctx), o->seed, o->reason);
    nlohmann::json j = {{"seed", r.seed},
                        {"masked", names(r.masked)},
                        {"kept", names(r.kept)},
                        {"best", r.best ? nlohmann::json(core::version_name(*r.best)) : nlohmann::json()},
                        {"noted_in", core::version_name(r.noted_in)},
                        {"next_version", core::version_name(r.next_version)},
                        {"commit", r.commit}};
    emit(ctx, j,
         "Masked " + names(r.masked).dump() + " with seed " + std::to_string(r.seed) + " (commit " +
             r.commit.substr(0, 12) + ")\n  kept " + names(r.kept).dump() + "; noted in " +
             core::version_name(r.noted_in) + "'s pitfalls\n  next iteration: " + core::version_name(r.next_version) +
             "\n");
  });
}

}  // namespace kgo::cli
