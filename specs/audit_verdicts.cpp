#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/memory.hpp"
#include "core/problem.hpp"
#include "core/stamp.hpp"
#include "core/strings.hpp"
#include "specs/audit.hpp"

namespace kgo::specs {

void audit_verdict_basis(const std::filesystem::path& workspace, AuditReport& report) {
  auto baseline = core::find_baseline(workspace);
  for (const auto& c : core::problem_changes_since_baseline(workspace)) {
    Finding f;
    f.file = c.file.substr(0, c.file.find(' '));  // "kgo.json (reference, ...)" -> kgo.json
    f.kind = "reference_changed";
    f.reason = c.describe(baseline);
    f.commit = c.commit;
    if (baseline) f.decision_commit = baseline->commit;
    report.findings.push_back(std::move(f));
  }
  for (int n : core::record_versions(workspace)) {
    nlohmann::json rec;
    try {
      rec = core::read_record(workspace, n, true);
    } catch (const Error&) {
      continue;  // an unreadable record is iterate verify's to report
    }
    std::vector<std::string> ops = core::allowed_ops(rec);
    if (ops.empty()) continue;
    AuditWarning w;
    w.file = "memory/" + core::version_name(n) + ".json";
    w.reason = "its verdict counted " + kgo::join(ops, ", ") +
               " as the kernel's own work (--allow-op): torch may have done that part of the work";
    w.allowed_ops = std::move(ops);
    report.warnings.push_back(std::move(w));
  }
}

}  // namespace kgo::specs
