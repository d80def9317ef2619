// `kgo plan new [vN]` and `kgo plan check [vN]`: iteration plans plans/v<N>_plan.md.
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "harness/plan_gate.hpp"
#include "iterate/plan.hpp"

namespace kgo::cli {

namespace {

struct PlanOptions {
  std::string version;
  std::string description;
  bool force = false;
};

std::optional<int> version_of(const PlanOptions& o) {
  return o.version.empty() ? std::nullopt : std::optional<int>(core::parse_version(o.version));
}

}  // namespace

void register_plan(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<PlanOptions>();
  CLI::App* plan = app.add_subcommand("plan", "Iteration plans: write one from the template, check one");
  plan->require_subcommand(1);

  CLI::App* add = plan->add_subcommand("new", "Write plans/v<N>_plan.md from templates/plan.md");
  add->add_option("version", o->version, "v<N> (default: the pending record, else the next version)");
  add->add_flag("--force", o->force, "Overwrite an existing plan");
  add->add_option("--description", o->description, "What this iteration tries (into the record, hence the commit message)");
  add_workspace_option(add, ctx);
  add->callback([o, &ctx] {
    auto ws = workspace_dir(ctx);
    auto r = iterate::new_plan(ws, version_of(*o), o->force, o->description);
    emit(ctx, {{"verb", "new"}, {"version", core::version_name(r.version)}, {"path", r.path.string()}},
         "Wrote " + r.path.string() + "\nFill every section, then `kgo plan check v" + std::to_string(r.version) + "`.\n");
  });

  CLI::App* check = plan->add_subcommand("check", "Refuse a plan with an empty section, more than one action category, a Hypothesis its files do not bear out, or an uncited hardware number");
  check->add_option("version", o->version, "v<N> (default: the highest-numbered plan)");
  add_workspace_option(check, ctx);
  check->callback([o, &ctx] {
    auto r = harness::check_plan_cited(workspace_dir(ctx), version_of(*o));
    std::string text = iterate::plan_relpath(r.version) + ": ";
    if (r.ok()) {
      text += "OK (one action: " + r.action_category + ")\n";
    } else {
      text += std::to_string(r.problems.size()) + " problem" + (r.problems.size() == 1 ? "" : "s") + "\n";
      for (const auto& p : r.problems) text += "  - " + p + "\n";
    }
    emit(ctx, {{"verb", "check"}, {"version", core::version_name(r.version)}, {"path", r.path.string()}, {"ok", r.ok()},
               {"action_category", r.action_category.empty() ? nlohmann::json() : nlohmann::json(r.action_category)},
               {"problems", r.problems}},
         text);
    if (!r.ok()) ctx.exit_code = static_cast<int>(ExitCode::plan_invalid);
  });
}

}  // namespace kgo::cli
