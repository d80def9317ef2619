#include "iterate/lifecycle.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/git.hpp"
#include "core/memory.hpp"
#include "core/problem.hpp"
#include "core/stamp.hpp"
#include "core/strings.hpp"
#include "core/txn.hpp"
#include "core/workspace.hpp"
#include "iterate/hypothesis.hpp"
#include "iterate/iteration_log.hpp"
#include "iterate/learn.hpp"
#include "iterate/plan.hpp"
#include "iterate/records.hpp"

namespace kgo::iterate {

using nlohmann::json;

namespace {

std::string record_rel(int n) { return "memory/" + core::version_name(n) + ".json"; }

// The README with its Iteration Log regenerated from `records` (where record n is `rec`).
std::string readme_for(const fs::path& ws, std::vector<Record> records, int n, const json& rec) {
  for (auto& r : records) {
    if (r.n == n) r.j = rec;
  }
  std::string readme = core::try_read_file(ws / "README.md").value_or("# Kernel Opt Session\n");
  return readme_with_log(readme, records);
}

// Predicted against measured, from the plan's hypothesis and the stamped records.
void add_prediction(const fs::path& ws, const std::vector<Record>& records, int n, json& rec) {
  if (n == 0) return;
  auto h = plan_hypothesis(ws, n);
  if (!h) return;
  rec["prediction"] = predicted_vs_measured(*h, records, n, rec);
  if (rec["optimization"].value("hypothesis", "").empty()) rec["optimization"]["hypothesis"] = hypothesis_text(*h);
}

// The decided iteration's experience record; the decision stands whatever happens here.
std::string learn(const fs::path& ws, int n) {
  try {
    auto l = learn_from_iteration(ws, n, experience::default_store_dir());
    return l.entry ? "experience record " + l.entry->id + " (" + l.entry->outcome + ")" : "no experience record: " + l.note;
  } catch (const Error& e) {
    return std::string("no experience record: ") + e.what();
  }
}

void refuse_if_abandoned(const core::TxnResult& r, const std::string& op) {
  if (r.outcome != "completed") throw Error(op + " did not complete: " + r.outcome, ExitCode::git_error);
}

}  // namespace

AcceptResult accept_iteration(const fs::path& ws, int n) {
  core::LockedWorkspace guard(ws);
  core::WorkspaceConfig cfg = core::load_config(ws);
  auto records = load_records(ws);
  require_decidable(records, n);
  std::string v = core::version_name(n);
  json rec = core::read_record(ws, n);
  auto kernel = core::try_read_file(ws / cfg.kernel_file);
  if (!kernel) {
    throw Error("kernel file " + (ws / cfg.kernel_file).string() + " is missing; restore it (git checkout -- " +
                    cfg.kernel_file + ") and run `kgo check`",
                ExitCode::kernel_missing);
  }
  std::string sha = core::sha256_hex(*kernel);
  if (auto why = core::problem_difference(ws)) throw Error("quality gate refused " + v + ": " + *why, ExitCode::quality_gate);
  for (const char* field : {"correctness", "performance"}) {
    if (std::string(field) == "performance" && !rec["performance"].is_object()) continue;
    auto why = core::stamp_problem(rec, field, sha);
    if (!why) why = core::stamp_unverified(ws, n, rec, field);
    if (why) throw Error("quality gate refused " + v + ": " + *why, ExitCode::quality_gate);
  }
  auto plan = core::try_read_file(plan_path(ws, n));
  if (n > 0) {
    PlanCheck pc = check_plan(ws, n);
    if (!pc.ok()) {
      throw Error(plan_relpath(n) + " does not pass `kgo plan check`: " + pc.problems.front() +
                      (pc.problems.size() > 1 ? fmt::format(" (and {} more)", pc.problems.size() - 1) : ""),
                  ExitCode::plan_invalid);
    }
    std::string cat = rec["optimization"].value("action_category", "");
    if (cat.empty()) {
      rec["optimization"]["action_category"] = pc.action_category;
    } else if (cat != pc.action_category) {
      throw Error("the record's optimization.action_category '" + cat + "' differs from the plan's '" +
                      pc.action_category + "'; one change per iteration: make them agree",
                  ExitCode::plan_invalid);
    }
  }
  rec["quality_gate"] = {{"result", "PASS"}, {"failure_reason", nullptr},
                         {"decided_at", core::record_time_now()}, {"kernel_sha256", sha}};
  add_prediction(ws, records, n, rec);
  core::validate_record(rec, n);

  AcceptResult out;
  out.version = n;
  out.kernel_sha256 = sha;
  std::vector<std::string> allowed = core::allowed_ops(rec);
  out.message = fmt::format("V{}: {} | {} (bottleneck: {}){}", n, perf_text(rec), summary_text(rec), evidence_text(rec),
                            allowed.empty() ? "" : " [--allow-op " + kgo::join(allowed, ",") + "]");
  std::string body = "\n\nkernel: " + cfg.kernel_file + " sha256 " + sha + "\nrecord: " + record_rel(n) +
                     "\ncorrectness: PASS, stamped by " + rec["correctness"]["stamp"].value("tool", "?") + "\n";
  if (!allowed.empty()) {
    body += "allowed ops: " + kgo::join(allowed, ", ") +
            " (--allow-op: the verdict counted these aten ops or libraries as the kernel's own work, not delegation)\n";
  }
  core::TxnCommit iteration{out.message + body, {}, {}};
  iteration.files.push_back({cfg.kernel_file, *kernel, false});
  if (plan) iteration.files.push_back({plan_relpath(n), *plan, false});
  iteration.files.push_back({record_rel(n), core::dump_record(rec), true});
  iteration.files.push_back({"README.md", readme_for(ws, records, n, rec), true});
  core::TxnCommit bookkeeping{"V" + std::to_string(n) + ": record the id of its iteration commit in " + record_rel(n),
                              {}, {record_rel(n)}};
  for (const auto& f : iteration.files) out.files.push_back(f.path);
  auto r = core::run_transaction(ws, "accept " + v, {iteration, bookkeeping});
  refuse_if_abandoned(r, "accept " + v);
  out.commit = r.commits.at(0);
  out.record_commit = r.commits.at(1);
  out.learned = learn(ws, n);
  return out;
}

RejectResult reject_iteration(const fs::path& ws, int n, const RejectRequest& req) {
  if (req.reason.empty()) throw Error("reject needs --reason TEXT: say why the iteration is rejected", ExitCode::usage);
  core::LockedWorkspace guard(ws);
  core::WorkspaceConfig cfg = core::load_config(ws);
  auto records = load_records(ws);
  require_decidable(records, n);
  std::string v = core::version_name(n);
  json rec = core::read_record(ws, n);
  core::GitRepo repo = core::GitRepo::open(ws);

  RejectResult out;
  out.version = n;
  const Record* last = last_accepted(records);
  if (last) {
    out.restored_from = last->j["git_commit"].get<std::string>();
  } else {
    auto log = repo.log();
    if (log.empty()) throw Error("the workspace has no commit to restore the kernel from", ExitCode::git_error);
    out.restored_from = log.back().id;  // nothing accepted yet: the kernel kgo init committed
  }
  auto restored = repo.read_at(out.restored_from, cfg.kernel_file);
  if (!restored) {
    throw Error("commit " + out.restored_from + " holds no " + cfg.kernel_file + " to restore", ExitCode::git_error);
  }
  auto current = core::try_read_file(ws / cfg.kernel_file);
  core::TxnCommit c{"", {}, {}};
  c.files.push_back({cfg.kernel_file, *restored, true});
  if (current && *current != *restored) {
    out.rejected_kernel = "rejected/" + v + "/" + fs::path(cfg.kernel_file).filename().string();
    c.files.push_back({*out.rejected_kernel, *current, true});
  }

  if (auto plan = core::try_read_file(plan_path(ws, n)); plan && rec["optimization"].value("action_category", "").empty()) {
    PlanCheck pc = check_plan_text(*plan);
    if (!pc.action_category.empty()) rec["optimization"]["action_category"] = pc.action_category;
  }
  std::string status = rec["correctness"].is_object() ? rec["correctness"].value("status", "") : "";
  std::string fix = "kernel restored from " + (last ? "V" + std::to_string(last->n) : std::string("the initial commit")) +
                    " (commit " + out.restored_from.substr(0, 12) + ")";
  if (out.rejected_kernel) fix += "; the rejected kernel is kept at " + *out.rejected_kernel;
  rec["quality_gate"] = {{"result", status == "TIMEOUT_FAIL" ? "TIMEOUT_FAIL" : "FAIL"},
                         {"failure_reason", req.reason},
                         {"decided_at", core::record_time_now()},
                         {"restored_from", out.restored_from}};
  if (current) rec["quality_gate"]["kernel_sha256"] = core::sha256_hex(*current);
  if (out.rejected_kernel) rec["quality_gate"]["rejected_kernel"] = *out.rejected_kernel;
  std::string type = req.error_type.value_or(status == "FAIL" ? "accuracy" : status == "TIMEOUT_FAIL" ? "timeout" : "rejected");
  rec["pitfalls_and_fixes"].push_back({{"error_type", type},
                                       {"error_message", req.reason},
                                       {"root_cause", req.root_cause},
                                       {"fix_applied", fix},
                                       {"lesson", req.lesson}});
  add_prediction(ws, records, n, rec);
  core::validate_record(rec, n);
  c.files.push_back({record_rel(n), core::dump_record(rec), true});
  if (auto plan = core::try_read_file(plan_path(ws, n))) c.files.push_back({plan_relpath(n), *plan, false});
  c.files.push_back({"README.md", readme_for(ws, records, n, rec), true});
  out.message = fmt::format("V{}: rejected | {} (reason: {})", n, summary_text(rec),
                            rec["pitfalls_and_fixes"].back()["error_message"].get<std::string>());
  for (char& ch : out.message) {
    if (ch == '\n' || ch == '\r') ch = ' ';
  }
  c.message = out.message + "\n\n" + fix + "\n";
  auto r = core::run_transaction(ws, "reject " + v, {c});
  refuse_if_abandoned(r, "reject " + v);
  out.commit = r.commits.at(0);
  out.learned = learn(ws, n);
  return out;
}

}  // namespace kgo::iterate
