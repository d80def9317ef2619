#pragma once
// `kgo audit`: re-verifies every registered citation against the wiki (drift: the cited line
// changed or moved), scans every archived file for uncited hardware numbers (rules in
// specs/scan.hpp) and for citations that are not registered or do not verify; with history,
// does the same for every commit. Every decided record is compared with its decision commit
// (core/decided.hpp), and every commit after the baseline that changed the problem (core/problem.hpp)
// is a finding, with or without history. A record whose verdict relied on --allow-op is a warning,
// not a finding. Clean means no finding.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpu-wiki-index/wiki_location.hpp"

namespace kgo::specs {

struct Finding {
  std::string file;     // workspace-relative
  int line = 0;
  // uncited_number, unregistered_citation, citation_unverified, malformed_citation, drift,
  // registry_invalid, unreadable, decided_record_edited, reference_changed
  std::string kind;
  std::string reason;
  std::string commit;   // with --history: the newest commit holding it; "" for the work tree;
                        // decided_record_edited: the first commit holding the edit, "" when uncommitted;
                        // reference_changed: the commit that changed the problem file
  std::string decision_commit;  // decided_record_edited: the commit that decided the record;
                                // reference_changed: the baseline's iteration commit
  std::string old_text; // drift: the line as registered
  std::string new_text; // drift: the line now ("" when the file has fewer lines)
  int moved_to = 0;     // drift: where the registered text is now, 0 when nowhere
};

// Not a finding: a record whose verdict counted aten ops named by --allow-op as the kernel's own work.
struct AuditWarning {
  std::string file;                      // memory/v<N>.json
  std::string kind = "allowed_ops";
  std::string reason;
  std::vector<std::string> allowed_ops;  // core::allowed_ops of the record
};

struct AuditReport {
  std::string workspace;
  wiki::WikiIdentity wiki;  // the wiki the citations were verified against
  size_t files_scanned = 0;
  size_t citations_checked = 0;
  size_t registry_entries = 0;
  size_t commits_checked = 0;
  std::vector<Finding> findings;
  std::vector<AuditWarning> warnings;
  bool clean() const { return findings.empty(); }
};

// The archived files: top-level *.md (README, reports, benchmark.md), plans/**/*.md,
// memory/**/*.json and profiles/**/*.md; nothing under a hidden directory.
bool is_archived_path(const std::string& rel);

// Adds what the workspace's verdicts rest on: a reference_changed finding per commit after the baseline
// that changed a problem file, and an allowed_ops warning per record whose stamps name allowed ops.
void audit_verdict_basis(const std::filesystem::path& workspace, AuditReport& report);

AuditReport audit_workspace(const std::filesystem::path& workspace,
                            const std::optional<std::filesystem::path>& wiki_dir, bool history);

// What the audit would find in `text` were it archived at `rel` now (uncited numbers, citations
// that are not registered or do not verify): run before a file is committed, so that it cannot
// become a finding of every later `kgo audit --history`.
std::vector<Finding> audit_file(const std::filesystem::path& workspace,
                                const std::optional<std::filesystem::path>& wiki_dir, const std::string& rel,
                                const std::string& text);

nlohmann::json to_json(const AuditReport& r);
std::string render_text(const AuditReport& r);

}  // namespace kgo::specs
