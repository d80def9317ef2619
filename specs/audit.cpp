#include "specs/audit.hpp"

#include <algorithm>
#include <cstring>
#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>

#include "core/decided.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/git.hpp"
#include "core/workspace.hpp"
#include "gpu-wiki-index/metrics.hpp"
#include "specs/history.hpp"
#include "specs/json_walk.hpp"
#include "specs/operations.hpp"
#include "specs/scan.hpp"
#include "specs/trace.hpp"
#include "specs/text.hpp"

namespace kgo::specs {

namespace fs = std::filesystem;

namespace {

// A line that opens with an HTML heading (<h1>..<h6>) as the markdown heading a reader sees ("## ..."), so a
// page's "Environment (measured)" section is labelled as the markdown report's is.
std::string html_headings(const std::string& text) {
  std::string out;
  for (const auto& line : split_lines(text)) {
    size_t at = line.find_first_not_of(" \t");
    bool heading = at != std::string::npos && line.compare(at, 2, "<h") == 0 && at + 3 < line.size() &&
                   line[at + 2] >= '1' && line[at + 2] <= '6' && line[at + 3] == '>';
    out += heading ? std::string(static_cast<size_t>(line[at + 2] - '0'), '#') + " " + line.substr(at + 4) : line;
    out += "\n";
  }
  return out;
}

// What a reader of an .svg or .html page sees: entities decoded (`&lt;gpu-wiki&gt;` is a citation),
// CDATA markers dropped, HTML headings as headings; other files unchanged. Line breaks stay where they were.
std::string markup_text(const std::string& rel, const std::string& text) {
  if (!rel.ends_with(".svg") && !rel.ends_with(".html")) return text;
  static const std::pair<const char*, const char*> entities[] = {
      {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"<![CDATA[", ""}, {"]]>", ""}, {"&amp;", "&"}};
  std::string out = text;
  for (const auto& [from, to] : entities) {
    std::string f = from;
    for (size_t at = 0; (at = out.find(f, at)) != std::string::npos; at += std::strlen(to)) out.replace(at, f.size(), to);
  }
  return rel.ends_with(".html") ? html_headings(out) : out;
}


struct Source {
  std::string rel;
  std::string content;
};

// Audits file contents against one wiki; memoizes citation checks (archives repeat citations).
class Auditor {
 public:
  Auditor(WikiView& view, std::string product) : m_view(view), m_product(std::move(product)) {}

  size_t citations_checked = 0;

  std::vector<Finding> registry(const std::string& specs_text) {
    std::vector<Finding> out;
    auto j = nlohmann::json::parse(specs_text, nullptr, false);
    Registry reg;
    try {
      if (j.is_discarded()) throw Error("specs.json is not valid JSON", ExitCode::schema_invalid);
      validate_registry_json(j);
      reg = j.get<Registry>();
    } catch (const Error& e) {
      out.push_back(Finding{"specs.json", 1, "registry_invalid", e.what()});
      return out;
    }
    std::vector<int> lines;  // line of each entry's "metric" value
    walk_json(specs_text, [&](const JsonValue& v) {
      if (v.path.size() == 2 && v.path[0] == "specs" && v.path[1] == "metric") lines.push_back(v.line);
    });
    for (size_t i = 0; i < reg.specs.size(); ++i) {
      const SpecEntry& e = reg.specs[i];
      int at = i < lines.size() ? lines[i] : 1;
      if (e.unknown) continue;
      if (auto f = entry_finding(e)) {
        f->line = at;
        f->file = "specs.json";
        out.push_back(*f);
      }
    }
    return out;
  }

  std::vector<Finding> file(const std::string& rel, const std::string& text, const Registry& reg) {
    std::vector<Finding> out;
    FileScan scan = scan_file(rel, markup_text(rel, text));
    if (!scan.error.empty()) out.push_back(Finding{rel, 1, "unreadable", rel + " is " + scan.error});
    for (const auto& n : scan.uncited) {
      out.push_back(Finding{rel, n.line, "uncited_number",
                            "hardware number '" + n.number + "' (" + n.kind +
                                ") has no <gpu-wiki> citation on its line; register it with kgo spec add and cite "
                                "it, or label the line as measured"});
    }
    for (const auto& n : scan.beside_citations) {
      std::vector<CitedValue> cited = cited_values(scan, n.line, reg);
      if (traces(n, cited)) continue;
      out.push_back(Finding{rel, n.line, "uncited_number",
                            "hardware number '" + n.number + "' (" + n.kind +
                                ") traces to no citation on its line (cited there: " + cited_text(cited) +
                                "); give it its own citation, or write how it is derived from a cited value "
                                "(\"X = f x <cited value>\")"});
    }
    for (const auto& site : scan.citations) {
      ++citations_checked;
      if (auto f = citation_finding(site.match, reg)) {
        f->file = rel;
        f->line = site.line;
        out.push_back(*f);
      }
    }
    return out;
  }

 private:
  // What the citations on `line` vouch for: their claimed values and the registered values of the
  // lines they cite (both verified against the wiki by the other checks).
  static std::vector<CitedValue> cited_values(const FileScan& scan, int line, const Registry& reg) {
    std::vector<CitedValue> out;
    for (const auto& site : scan.citations) {
      if (site.line != line || !site.match.citation) continue;
      const CitationMatch& m = site.match;
      if (m.claimed_value) out.push_back(CitedValue{*m.claimed_value, m.claimed_unit});
      for (const auto& e : reg.specs) {
        if (!e.unknown && e.file == m.citation->path && e.line == m.citation->line) {
          out.push_back(CitedValue{e.value, e.unit});
        }
      }
    }
    return out;
  }

  std::optional<Finding> entry_finding(const SpecEntry& e) {
    auto fail = [&](const std::string& kind, const std::string& why) {
      return Finding{"", 0, kind, e.metric + " <- " + e.citation + ": " + why};
    };
    if (e.product != m_product) {
      return fail("citation_unverified", "registered for " + e.product + ", but the workspace's platform is " + m_product);
    }
    if (core::sha256_hex(e.line_text) != e.line_sha256) {
      return fail("registry_invalid", "line_sha256 does not match the registered line_text (specs.json was edited by hand)");
    }
    const WikiView::File* f = nullptr;
    try {
      f = &m_view.file(e.file);
    } catch (const Error& err) {
      return fail("citation_unverified", err.what());
    }
    std::string now = e.line <= static_cast<int>(f->lines.size()) ? f->lines[e.line - 1] : "";
    if (now != e.line_text) {
      Finding d = fail("drift", "");
      d.old_text = e.line_text;
      d.new_text = now;
      for (size_t k = 0; k < f->lines.size(); ++k) {
        if (f->lines[k] == e.line_text) {
          d.moved_to = static_cast<int>(k + 1);
          break;
        }
      }
      d.reason += "the cited line changed: it was \"" + trim(e.line_text) + "\", it now reads \"" + trim(now) + "\"" +
                  (d.moved_to ? "; the registered text moved to L" + std::to_string(d.moved_to) +
                                    " (re-register with kgo spec add ...:L" + std::to_string(d.moved_to) + ")"
                              : "; the registered text is nowhere in the file (re-check the value)");
      return d;
    }
    Claim c{e.metric, m_product, e.value, e.value_text, e.unit, Citation{e.file, e.line, ""}};
    try {
      verify_claim(m_view, c);
    } catch (const Error& err) {
      return fail("citation_unverified", err.what());
    }
    return std::nullopt;
  }

  std::optional<Finding> citation_finding(const CitationMatch& m, const Registry& reg) {
    std::string key = std::to_string(reinterpret_cast<uintptr_t>(&reg)) + "\n" +
                      std::string(m.citation ? format_citation(*m.citation) : m.error) + "\n" +
                      m.claimed_value_text + "\n" + m.claimed_unit + "\n" + m.metric_text;
    auto it = m_memo.find(key);
    if (it != m_memo.end()) return it->second;
    auto result = check_citation(m, reg);
    m_memo.emplace(key, result);
    return result;
  }

  std::optional<Finding> check_citation(const CitationMatch& m, const Registry& reg) {
    if (!m.citation) return Finding{"", 0, "malformed_citation", m.error};
    Citation c = *m.citation;
    const std::string cited = format_citation(c);
    std::optional<std::string> named;
    if (!m.metric_text.empty()) {
      auto it = m_metric_memo.find(m.metric_text);
      if (it == m_metric_memo.end()) it = m_metric_memo.emplace(m.metric_text, wiki::metric_from_text(m.metric_text)).first;
      named = it->second;
    }
    try {
      const WikiView::File& f = m_view.file(c.path);
      if (c.line == 0) {
        if (!named) {
          return Finding{"", 0, "citation_unverified",
                         cited + ": a :<section> citation needs the metric named before it to resolve; cite :L<line>"};
        }
        c.line = resolve_section(m_view, c.path, c.section, *named, m_product);
        c.section.clear();
      }
      if (c.line > static_cast<int>(f.lines.size())) {
        return Finding{"", 0, "citation_unverified", cited + ": " + c.path + " has only " +
                                                         std::to_string(f.lines.size()) + " lines"};
      }
    } catch (const Error& err) {
      return Finding{"", 0, "citation_unverified", cited + ": " + err.what()};
    }
    std::vector<std::string> metrics;
    if (named) metrics.push_back(*named);
    for (const auto& e : reg.specs) {
      if (!e.unknown && e.file == c.path && e.line == c.line &&
          std::find(metrics.begin(), metrics.end(), e.metric) == metrics.end()) {
        metrics.push_back(e.metric);
      }
    }
    bool registered = std::any_of(reg.specs.begin(), reg.specs.end(), [&](const SpecEntry& e) {
      return !e.unknown && e.file == c.path && e.line == c.line;
    });
    if (!registered) {
      return Finding{"", 0, "unregistered_citation",
                     cited + " is not in the registry (specs.json); register it with kgo spec add \"<metric>: "
                             "<value> <unit> <- " + format_citation(c) + "\""};
    }
    if (!m.claimed_value) return std::nullopt;
    std::string first_error;
    for (const auto& metric : metrics) {
      Claim claim{metric, m_product, *m.claimed_value, m.claimed_value_text, m.claimed_unit, c};
      try {
        verify_claim(m_view, claim);
        return std::nullopt;
      } catch (const Error& err) {
        if (first_error.empty()) first_error = err.what();
      }
    }
    return Finding{"", 0, "citation_unverified", m.claimed_value_text + " " + m.claimed_unit + " <- " + cited + ": " + first_error};
  }

  WikiView& m_view;
  std::string m_product;
  std::unordered_map<std::string, std::optional<Finding>> m_memo;
  std::unordered_map<std::string, std::optional<std::string>> m_metric_memo;
};

std::vector<Source> work_tree_sources(const fs::path& ws) {
  std::vector<Source> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(ws, ec); it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    std::string name = it->path().filename().string();
    if (it->is_directory(ec) && !name.empty() && name[0] == '.') {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(ec)) continue;
    std::string rel = fs::relative(it->path(), ws, ec).generic_string();
    if (!is_archived_path(rel)) continue;
    out.push_back(Source{rel, core::try_read_file(it->path()).value_or("")});
  }
  std::sort(out.begin(), out.end(), [](const Source& a, const Source& b) { return a.rel < b.rel; });
  return out;
}

std::string finding_key(const Finding& f) {
  return f.file + "\n" + std::to_string(f.line) + "\n" + f.kind + "\n" + f.reason;
}

}  // namespace

AuditReport audit_workspace(const fs::path& workspace, const std::optional<fs::path>& wiki_dir, bool history) {
  core::WorkspaceConfig cfg = core::load_config(workspace);
  wiki::WikiLocation location = workspace_wiki(workspace, wiki_dir);
  WikiView view = open_wiki(location);
  std::string product = view.index().resolve_product(cfg.platform);
  AuditReport report;
  report.workspace = workspace.string();
  report.wiki = wiki::identify_wiki(location, view.index().fingerprint());
  Auditor auditor(view, product);
  std::set<std::string> seen;
  auto add = [&](Finding f, const std::string& commit) {
    if (!seen.insert(finding_key(f)).second) return;
    f.commit = commit;
    report.findings.push_back(std::move(f));
  };

  std::string specs_text = core::try_read_file(workspace / "specs.json").value_or("");
  Registry reg;
  if (!specs_text.empty()) {
    for (auto& f : auditor.registry(specs_text)) add(std::move(f), "");
    auto j = nlohmann::json::parse(specs_text, nullptr, false);
    try {
      if (!j.is_discarded()) reg = j.get<Registry>();
    } catch (const std::exception&) {
      // Reported above as registry_invalid; citations are then checked against an empty registry.
    }
  }
  report.registry_entries = reg.specs.size();
  for (const auto& src : work_tree_sources(workspace)) {
    ++report.files_scanned;
    for (auto& f : auditor.file(src.rel, src.content, reg)) add(std::move(f), "");
  }
  std::error_code git_ec;
  if (fs::exists(workspace / ".git", git_ec)) {
    for (const auto& e : core::decided_record_edits(workspace)) {
      Finding f;
      f.file = e.path;
      f.kind = "decided_record_edited";
      f.reason = e.describe();
      f.decision_commit = e.decision_commit;
      report.findings.push_back(std::move(f));
      if (e.edit_commit) report.findings.back().commit = *e.edit_commit;
    }
  }
  audit_verdict_basis(workspace, report);
  if (history) {
    std::error_code ec;
    if (!fs::exists(workspace / ".git", ec)) {
      throw Error("--history needs the workspace's git repository, and " + workspace.string() + " has none",
                  ExitCode::git_error);
    }
    auto commits = core::GitRepo::open(workspace).log();
    HistoryReader reader(workspace);
    std::map<std::string, Registry> registries;                     // specs.json blob -> registry
    std::map<std::string, std::vector<Finding>> by_blob;            // blob + registry blob -> findings
    for (const auto& commit : commits) {
      ++report.commits_checked;
      auto files = reader.files_at(commit.id);
      std::string reg_blob;
      for (const auto& f : files) {
        if (f.path == "specs.json") reg_blob = f.blob_id;
      }
      if (!reg_blob.empty() && !registries.count(reg_blob)) {
        std::string text = reader.read_blob(reg_blob);
        for (auto& f : auditor.registry(text)) add(std::move(f), commit.id);
        auto j = nlohmann::json::parse(text, nullptr, false);
        Registry r;
        try {
          if (!j.is_discarded()) r = j.get<Registry>();
        } catch (const std::exception&) {
        }
        registries.emplace(reg_blob, std::move(r));
      }
      static const Registry k_empty;
      const Registry& at_reg = reg_blob.empty() ? k_empty : registries.at(reg_blob);
      for (const auto& f : files) {
        if (!is_archived_path(f.path)) continue;
        std::string key = f.blob_id + ":" + reg_blob + ":" + f.path;
        auto it = by_blob.find(key);
        if (it == by_blob.end()) {
          it = by_blob.emplace(key, auditor.file(f.path, reader.read_blob(f.blob_id), at_reg)).first;
        }
        for (const auto& finding : it->second) add(finding, commit.id);
      }
    }
  }
  report.citations_checked = auditor.citations_checked;
  return report;
}

std::vector<Finding> audit_file(const fs::path& workspace, const std::optional<fs::path>& wiki_dir,
                                const std::string& rel, const std::string& text) {
  core::WorkspaceConfig cfg = core::load_config(workspace);
  WikiView view = open_wiki(workspace_wiki(workspace, wiki_dir));
  Auditor auditor(view, view.index().resolve_product(cfg.platform));
  Registry reg;
  auto j = nlohmann::json::parse(core::try_read_file(workspace / "specs.json").value_or(""), nullptr, false);
  try {
    if (j.is_object()) reg = j.get<Registry>();
  } catch (const std::exception&) {
    // An unreadable registry registers nothing: every citation is then unregistered.
  }
  return auditor.file(rel, text, reg);
}

}  // namespace kgo::specs
