// `kgo iterate accept vN | reject vN --reason TEXT | verify`: the iteration lifecycle on git.
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "harness/plan_gate.hpp"
#include "iterate/lifecycle.hpp"
#include "iterate/records.hpp"

namespace kgo::cli {

namespace {

using nlohmann::json;

struct IterateOptions {
  std::string version;
  iterate::RejectRequest reject;
  std::string error_type;
};

}  // namespace

void register_iterate(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<IterateOptions>();
  CLI::App* it = app.add_subcommand("iterate", "Accept or reject an iteration (commits), verify record/commit agreement");
  it->require_subcommand(1);
  auto leaf = [&](const char* name, const char* help) {
    CLI::App* s = it->add_subcommand(name, help);
    add_workspace_option(s, ctx);
    return s;
  };

  CLI::App* accept = leaf("accept", "Quality gate (PASS stamp of this exact kernel), then commit kernel, plan, record, README");
  accept->add_option("version", o->version, "v<N>")->required();
  accept->callback([o, &ctx] {
    auto ws = workspace_dir(ctx);
    int n = core::parse_version(o->version);
    if (n > 0) {  // decidable first (its refusals come first), then the plan with its citations
      iterate::require_decidable(iterate::load_records(ws), n);
      harness::require_plan(ws, n);
    }
    auto r = iterate::accept_iteration(ws, n);
    emit(ctx, {{"verb", "accept"}, {"version", core::version_name(r.version)}, {"commit", r.commit},
               {"record_commit", r.record_commit}, {"message", r.message}, {"kernel_sha256", r.kernel_sha256},
               {"files", r.files}, {"experience", r.learned}},
         "Accepted " + core::version_name(r.version) + " in commit " + r.commit.substr(0, 12) + "\n  " + r.message +
             "\n  the record names it (bookkeeping commit " + r.record_commit.substr(0, 12) + ")\n  " + r.learned + "\n");
  });

  CLI::App* reject = leaf("reject", "Restore the last accepted kernel, keep the record as FAIL with a pitfall, commit");
  reject->add_option("version", o->version, "v<N>")->required();
  reject->add_option("--reason", o->reject.reason, "Why the iteration is rejected")->required();
  reject->add_option("--lesson", o->reject.lesson, "What to remember next time");
  reject->add_option("--root-cause", o->reject.root_cause, "The root cause, when known");
  reject->add_option("--error-type", o->error_type, "compilation|runtime|accuracy|performance|timeout|rejected|other");
  reject->callback([o, &ctx] {
    iterate::RejectRequest req = o->reject;
    if (!o->error_type.empty()) req.error_type = o->error_type;
    auto r = iterate::reject_iteration(workspace_dir(ctx), core::parse_version(o->version), req);
    std::string text = "Rejected " + core::version_name(r.version) + " in commit " + r.commit.substr(0, 12) + "\n  " +
                       r.message + "\n  kernel restored from " + r.restored_from.substr(0, 12) + "\n";
    if (r.rejected_kernel) text += "  the rejected kernel is kept at " + *r.rejected_kernel + "\n";
    text += "  " + r.learned + "\n";
    emit(ctx, {{"verb", "reject"}, {"version", core::version_name(r.version)}, {"commit", r.commit},
               {"message", r.message}, {"restored_from", r.restored_from},
               {"rejected_kernel", r.rejected_kernel ? json(*r.rejected_kernel) : json()}, {"experience", r.learned}},
         text);
  });

  CLI::App* verify = leaf("verify", "Check that every record parses and agrees with the commit it names");
  verify->callback([&ctx] {
    auto r = iterate::verify_workspace(workspace_dir(ctx));
    std::string text = std::to_string(r.records) + " records checked: " +
                       (r.problems.empty() ? "records and commits agree\n" : std::to_string(r.problems.size()) + " problems\n");
    for (const auto& p : r.problems) text += "  - " + p + "\n";
    emit(ctx, {{"verb", "verify"}, {"records", r.records}, {"ok", r.problems.empty()}, {"problems", r.problems}}, text);
    if (!r.problems.empty()) ctx.exit_code = static_cast<int>(ExitCode::record_error);
  });
}

}  // namespace kgo::cli
