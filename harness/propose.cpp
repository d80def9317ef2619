#include "harness/propose.hpp"

#include <fmt/format.h>

#include "core/decided.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/txn.hpp"
#include "core/memory.hpp"
#include "core/problem.hpp"
#include "core/workspace.hpp"
#include "harness/bench.hpp"
#include "harness/check.hpp"
#include "harness/check_workspace.hpp"
#include "harness/plan_gate.hpp"
#include "harness/utilization.hpp"
#include "iterate/lifecycle.hpp"
#include "iterate/records.hpp"

namespace kgo::harness {

namespace {

namespace fs = std::filesystem;

// The iteration to propose: the open record, or the next version when the latest one is decided.
int iteration_version(const fs::path& ws) {
  auto records = iterate::load_records(ws);
  if (!iterate::last_accepted(records)) {
    throw Error("no accepted baseline to compare with; run `kgo baseline` first", ExitCode::record_error);
  }
  const iterate::Record& latest = records.back();
  bool open = !latest.masked() && latest.gate() == "PENDING" && !latest.j.value("git_commit", nlohmann::json()).is_string();
  return open ? latest.n : latest.n + 1;
}

// The open record n (created when missing); its description set when given.
void open_record(const fs::path& ws, int n, const std::string& description) {
  if (!fs::exists(core::record_path(ws, n))) core::create_record(ws);
  if (!description.empty()) core::update_record(ws, n, {{"optimization.action_description", description}});
}

void copy_kernel(const fs::path& ws, const core::WorkspaceConfig& cfg, const fs::path& from) {
  auto text = core::try_read_file(from);
  if (!text) throw Error("cannot read kernel " + from.string() + "; pass an existing file", ExitCode::kernel_missing);
  core::LockedWorkspace lock(ws);
  core::write_file_atomic(ws / cfg.kernel_file, *text);
}

ProposeResult decide(const fs::path& ws, int n, ProposeResult r, bool accept) {
  if (accept) {
    r.verdict = "accepted";
    r.commit = iterate::accept_iteration(ws, n).commit;
  } else {
    r.verdict = "rejected";
    iterate::RejectRequest req;
    req.reason = r.reason;
    req.error_type = r.check_verdict == "PASS" ? "performance" : r.check_verdict == "TIMEOUT_FAIL" ? "timeout" : "accuracy";
    r.commit = iterate::reject_iteration(ws, n, req).commit;
  }
  return r;
}

}  // namespace

ProposeResult propose(const fs::path& ws, const ProposeRequest& req) {
  core::WorkspaceConfig cfg = core::load_config(ws);
  core::verify_problem_unchanged(ws);  // before the kernel is copied in; verdict_target checks again
  core::refuse_decided_edits(ws);
  int n = iteration_version(ws);
  require_plan(ws, n);  // before the check is spent
  if (req.kernel) copy_kernel(ws, cfg, *req.kernel);
  open_record(ws, n, req.description);
  ProposeResult r;
  r.version = core::version_name(n);

  Target target = verdict_target(ws, cfg, req.target);
  CheckSettings s;
  s.trials = req.trials;
  s.edge_shapes = req.edge_shapes;
  set_check_timeouts(s, target.device, std::nullopt, std::nullopt);
  CheckReport check = run_check(target, s);
  record_check(ws, check);
  r.check_verdict = check.verdict;
  if (!check.passed()) {
    r.reason = "check " + check.verdict + ": " + verdict_explanation(check);
    return decide(ws, n, r, false);
  }
  auto records = iterate::load_records(ws);
  const iterate::Record* accepted = iterate::last_accepted(records);
  if (target.device == "cuda") {
    Target bt = target;
    bt.shapes = req.target.shapes.empty() ? default_sizes(cfg.shapes) : target.shapes;
    BenchReport bench = run_workspace_bench(ws, bt, BenchSettings{});
    record_bench(ws, bench);
    if (!bench.passed()) {
      r.reason = "bench " + bench.verdict + ": " + bench.message;
      return decide(ws, n, r, false);
    }
    r.latency_us = iterate::load_records(ws).back().number("performance.latency_us");
    if (accepted) r.accepted_latency_us = accepted->number("performance.latency_us");
    if (accepted) r.compared_with = core::version_name(accepted->n);
    if (r.latency_us && r.accepted_latency_us && *r.latency_us > *r.accepted_latency_us * (1 + req.slower_tolerance)) {
      r.reason = fmt::format("slower: {:.2f} us against {:.2f} us of {}", *r.latency_us, *r.accepted_latency_us,
                             *r.compared_with);
      return decide(ws, n, r, false);
    }
    r.reason = "correct; timed";
    if (r.latency_us && r.accepted_latency_us) {
      double change = (*r.latency_us / *r.accepted_latency_us - 1) * 100;
      r.reason = fmt::format("correct and {:.2f} us against {:.2f} us of {} ({:+.1f}%; slower than +{:.0f}% is refused)",
                             *r.latency_us, *r.accepted_latency_us, *r.compared_with, change,
                             req.slower_tolerance * 100);
    }
  } else {
    r.reason = "correct on the CPU (Triton interpreter); not timed, so not compared for speed";
  }
  auto roof = core::try_read_file(ws / "roofline.json");
  if (roof) {
    auto j = nlohmann::json::parse(*roof, nullptr, false);
    if (!j.is_discarded() && j.value("met", nlohmann::json()).is_boolean()) r.stop_conditions_met = j["met"].get<bool>();
  }
  return decide(ws, n, r, true);
}

nlohmann::json to_json(const ProposeResult& r) {
  auto opt = [](const auto& o) { return o ? nlohmann::json(*o) : nlohmann::json(); };
  return {{"version", r.version}, {"verdict", r.verdict}, {"reason", r.reason}, {"check", r.check_verdict},
          {"latency_us", opt(r.latency_us)}, {"accepted_latency_us", opt(r.accepted_latency_us)},
          {"compared_with", opt(r.compared_with)}, {"commit", r.commit},
          {"stop_conditions_met", opt(r.stop_conditions_met)}};
}

}  // namespace kgo::harness
