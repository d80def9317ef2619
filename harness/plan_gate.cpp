#include "harness/plan_gate.hpp"

#include "core/error.hpp"
#include "core/files.hpp"
#include "specs/audit.hpp"

namespace kgo::harness {

iterate::PlanCheck check_plan_cited(const std::filesystem::path& ws, std::optional<int> n) {
  iterate::PlanCheck out = iterate::check_plan(ws, n);
  std::string rel = iterate::plan_relpath(out.version);
  for (const auto& f : specs::audit_file(ws, std::nullopt, rel, core::read_file(out.path))) {
    out.problems.push_back(rel + ":" + std::to_string(f.line) + ": " + f.kind + ": " + f.reason);
  }
  return out;
}

void require_plan(const std::filesystem::path& ws, int n) {
  iterate::PlanCheck pc = check_plan_cited(ws, n);
  if (pc.ok()) return;
  std::string more = pc.problems.size() > 1 ? " (and " + std::to_string(pc.problems.size() - 1) + " more)" : "";
  throw Error(iterate::plan_relpath(n) + " does not pass `kgo plan check`: " + pc.problems.front() + more +
                  "; nothing was run or committed",
              ExitCode::plan_invalid);
}

}  // namespace kgo::harness
