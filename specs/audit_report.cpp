// The audit report's two renderers (JSON and text) and which workspace files are archived.
#include "specs/audit.hpp"

namespace kgo::specs {

bool is_archived_path(const std::string& rel) {
  auto ends = [&](const std::string& s) { return rel.size() >= s.size() && rel.compare(rel.size() - s.size(), s.size(), s) == 0; };
  if (rel.empty() || rel[0] == '.' || rel.find("/.") != std::string::npos) return false;
  bool top = rel.find('/') == std::string::npos;
  if (top) return ends(".md");
  if (rel.rfind("plans/", 0) == 0 || rel.rfind("profiles/", 0) == 0) return ends(".md");
  if (rel.rfind("memory/", 0) == 0) return ends(".json");
  if (rel.rfind("report/", 0) == 0) return ends(".md") || ends(".html") || ends(".svg");
  return false;
}

nlohmann::json to_json(const AuditReport& r) {
  nlohmann::json findings = nlohmann::json::array();
  for (const auto& f : r.findings) {
    nlohmann::json j{{"file", f.file}, {"line", f.line}, {"kind", f.kind}, {"reason", f.reason}};
    if (!f.commit.empty()) j["commit"] = f.commit;
    if (!f.decision_commit.empty()) j["decision_commit"] = f.decision_commit;
    if (f.kind == "drift") {
      j["old_text"] = f.old_text;
      j["new_text"] = f.new_text;
      j["moved_to"] = f.moved_to ? nlohmann::json(f.moved_to) : nlohmann::json(nullptr);
    }
    findings.push_back(std::move(j));
  }
  nlohmann::json warnings = nlohmann::json::array();
  for (const auto& w : r.warnings) {
    warnings.push_back({{"file", w.file}, {"kind", w.kind}, {"reason", w.reason}, {"allowed_ops", w.allowed_ops}});
  }
  return nlohmann::json{{"workspace", r.workspace},
                        {"wiki", wiki::to_json(r.wiki)},
                        {"clean", r.clean()},
                        {"files_scanned", r.files_scanned},
                        {"citations_checked", r.citations_checked},
                        {"registry_entries", r.registry_entries},
                        {"commits_checked", r.commits_checked},
                        {"findings", findings},
                        {"warnings", warnings}};
}

std::string render_text(const AuditReport& r) {
  std::string out;
  for (const auto& f : r.findings) {
    if (!f.commit.empty()) out += "[" + f.commit.substr(0, 10) + "] ";
    out += f.file + ":" + std::to_string(f.line) + ": " + f.kind + ": " + f.reason + "\n";
  }
  for (const auto& w : r.warnings) out += "warning: " + w.file + ": " + w.kind + ": " + w.reason + "\n";
  std::string counts = std::to_string(r.files_scanned) + " files, " + std::to_string(r.citations_checked) +
                       " citations, " + std::to_string(r.registry_entries) + " registered specs" +
                       (r.commits_checked ? ", " + std::to_string(r.commits_checked) + " commits" : "");
  out += r.clean() ? "audit: clean (" + counts + ")\n"
                   : "audit: " + std::to_string(r.findings.size()) + " finding(s) (" + counts + ")\n";
  out += "gpu-wiki: " + wiki::describe(r.wiki) + "\n";
  return out;
}

}  // namespace kgo::specs
