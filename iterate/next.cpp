#include "iterate/next.hpp"

#include <fmt/format.h>

#include "core/decided.hpp"
#include "core/files.hpp"
#include "core/gpu_info.hpp"
#include "core/memory.hpp"
#include "core/workspace.hpp"
#include "iterate/hypothesis.hpp"
#include "iterate/plan.hpp"
#include "iterate/records.hpp"

namespace kgo::iterate {

namespace {

namespace fs = std::filesystem;

std::optional<nlohmann::json> read_json(const fs::path& p) {
  auto text = core::try_read_file(p);
  if (!text) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

NextStep step(std::string state, std::string command, std::string tool, std::string why) {
  return {std::move(state), std::move(command), std::move(tool), std::move(why), std::nullopt};
}

// Timed, not met, and no launch-latency floor: the smallest target rests on the bandwidth or
// compute floor alone and may lie below any kernel launch. The unmet shape with the smallest target.
std::optional<std::string> unreachable_target(const nlohmann::json& roof) {
  if (roof.value("met", nlohmann::json()) != false || !roof.value("evaluated", false)) return std::nullopt;
  const nlohmann::json inputs = roof.value("inputs", nlohmann::json());
  if (!inputs.is_object() || !inputs.value("launch_latency", nlohmann::json()).is_null()) return std::nullopt;
  std::optional<std::string> out;
  double smallest = 0;
  for (const auto& s : roof.value("shapes", nlohmann::json::array())) {
    const nlohmann::json m = s.value("measured", nlohmann::json());
    const nlohmann::json target = s.value("target_time_s", nlohmann::json());
    if (!m.is_object() || m.value("met", true) || !target.is_number()) continue;
    double t = target.get<double>();
    if (!out || t < smallest) {
      smallest = t;
      out = fmt::format("{} (target {:.3g} us)", s.value("label", "?"), t * 1e6);
    }
  }
  return out;
}

}  // namespace

const char* workflow_line() {
  return "init -> spec auto -> roofline -> baseline -> [plan new -> edit the kernel -> propose (check, bench, "
         "accept or reject)]* -> done when the Stop Conditions are met (on a machine without a GPU: correct_only; "
         "after kgo.json's max_iterations decided iterations: budget_spent; with no launch-latency floor "
         "registered: unreachable until `kgo ceiling --record`)";
}

NextStep next_step(const std::optional<fs::path>& workspace) {
  if (!workspace) {
    return step("init", "kgo init <name> <kernel.py> --platform <GPU> --reference <ref.py> --shape <MxN>", "init",
                "no kgo workspace here");
  }
  const fs::path& ws = *workspace;
  std::error_code ec;
  auto edits = fs::exists(ws / ".git", ec) ? core::decided_record_edits(ws) : std::vector<core::DecidedRecordEdit>{};
  if (!edits.empty()) {
    const core::DecidedRecordEdit& e = edits.front();
    return step("repair", e.repair_command() + " (in the workspace)", "",
                e.describe() + (edits.size() > 1 ? fmt::format(" ({} more: `kgo audit` lists them)", edits.size() - 1) : ""));
  }
  auto specs = read_json(ws / "specs.json");
  if (!specs || !specs->contains("specs") || (*specs)["specs"].empty()) {
    return step("specs", "kgo spec auto", "spec_auto", "specs.json registers no cited hardware spec yet");
  }
  auto roof = read_json(ws / "roofline.json");
  if (!roof) {
    return step("roofline", "kgo roofline --op <catalog op>", "roofline",
                "no roofline.json: the Stop Conditions are not set");
  }
  std::vector<Record> records = load_records(ws);
  const Record* accepted = last_accepted(records);
  if (!accepted) return step("baseline", "kgo baseline", "baseline", "no accepted record: v0 is the baseline");
  if (roof->value("met", nlohmann::json()) == true) {
    return step("done", "kgo audit", "audit", "roofline.json: the Stop Conditions are met");
  }
  const Record& latest = records.back();
  std::string v = core::version_name(latest.n);
  bool pending = !latest.masked() && latest.gate() == "PENDING" && !latest.j.value("git_commit", nlohmann::json()).is_string();
  if (!pending && !workspace_timed(ws) && !core::nvidia_gpu_visible()) {
    return step("correct_only", "kgo report", "report",
                core::version_name(accepted->n) + " is correct and " + v +
                    " is decided; nothing can be timed on this machine (no GPU), so no Stop Condition can be met "
                    "here: this is the end of a CPU session. `kgo report` writes the report; on a GPU "
                    "`kgo baseline --device cuda` starts the timed loop (`kgo plan new` still iterates on "
                    "correctness only)");
  }
  if (!pending) {
    int decided = decided_iterations(records);
    int budget = core::load_config(ws).max_iterations;
    if (decided >= budget) {
      return step("budget_spent", "kgo report", "report",
                  fmt::format("{} iterations are decided, the budget fixed at init (kgo.json max_iterations {}), and "
                              "the Stop Conditions are not met: this run ends here; `kgo report` writes the report "
                              "(a new run: a new workspace, `kgo init --max-iterations N`)",
                              decided, budget));
    }
    if (auto shape = unreachable_target(*roof)) {
      return step("unreachable", "kgo ceiling --record <gpu-wiki dir> && kgo spec auto && kgo roofline", "",
                  "the Stop Conditions are not met and no launch-latency floor is registered, so the targets rest "
                  "on the bandwidth or compute floor alone: " + *shape +
                      " may be below any kernel launch; measure and register the launch floor (`kgo ceiling "
                      "--record`), then the roofline sets reachable targets");
    }
    NextStep s = step("plan", "kgo plan new --description \"<what this iteration tries>\"", "plan_new",
                      v + " is decided; the next iteration starts with a plan");
    return s;
  }
  if (!fs::exists(plan_path(ws, latest.n))) {
    NextStep s = step("plan", "kgo plan new " + v + " --description \"<what this iteration tries>\"", "plan_new",
                      v + " is open without a plan");
    s.version = v;
    return s;
  }
  NextStep s = step("edit", "edit the kernel, then kgo propose", "propose",
                    v + " is open with " + plan_relpath(latest.n) + "; propose checks, benches and decides it");
  s.version = v;
  return s;
}

bool terminal(const NextStep& s) {
  return s.state == "done" || s.state == "correct_only" || s.state == "budget_spent" || s.state == "unreachable";
}

nlohmann::json to_json(const NextStep& s) {
  return {{"state", s.state}, {"terminal", terminal(s)}, {"command", s.command}, {"tool", s.tool}, {"why", s.why},
          {"version", s.version ? nlohmann::json(*s.version) : nlohmann::json()}, {"workflow", workflow_line()}};
}

}  // namespace kgo::iterate
