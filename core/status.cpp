#include "core/status.hpp"

#include <algorithm>
#include <regex>

#include "core/decided.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/untrusted.hpp"
#include "core/json_schema.hpp"
#include "core/memory.hpp"

namespace kgo::core {

const std::vector<std::string>& status_parts() {
  static const std::vector<std::string> parts = {"config", "commits", "records", "uncommitted"};
  return parts;
}

namespace {

bool shows(const StatusView& v, const std::string& part) { return v.parts.empty() || v.parts.count(part); }

void require_known_parts(const StatusView& v) {
  const auto& known = status_parts();
  for (const auto& p : v.parts) {
    if (std::find(known.begin(), known.end(), p) == known.end()) {
      throw Error("unknown status part '" + p + "'; choose from config, commits, records, uncommitted",
                  ExitCode::usage);
    }
  }
}

}  // namespace

WorkspaceStatus workspace_status(const fs::path& workspace, const StatusView& view) {
  require_known_parts(view);
  WorkspaceStatus s;
  s.workspace = workspace;
  s.view = view;
  s.config = load_config(workspace);
  GitRepo repo = GitRepo::open(workspace);
  s.commits = repo.log();
  s.uncommitted = repo.changed_paths();
  DecidedRecords decided = decided_records(workspace);
  std::vector<std::pair<long, RecordSummary>> recs;
  for (int n : record_versions(workspace)) {
    RecordSummary r;
    r.version = version_name(n);
    const std::string rel = "memory/" + r.version + ".json";
    auto text = try_read_file(record_path(workspace, n));
    if (text) {
      auto j = parse_json_bounded(*text);
      if (j.is_object()) {
        r.masked = j.value("masked", false);
        if (j.contains("correctness") && j["correctness"].is_object()) {
          r.status = j["correctness"].value("status", "");
        }
        if (j.contains("git_commit") && j["git_commit"].is_string()) {
          r.commit = j["git_commit"].get<std::string>();
        } else if (auto it = decided.decision_commits.find(rel); it != decided.decision_commits.end()) {
          r.commit = it->second;  // a rejected record names no commit (none holds its kernel): its decision's
        }
      }
    }
    recs.emplace_back(n, r);
  }
  std::sort(recs.begin(), recs.end(), [](auto& a, auto& b) { return a.first < b.first; });
  for (const auto& e : decided.edits) {  // the work tree's verdict of an edited record is not kgo's
    for (auto& [n, r] : recs) {
      if ("memory/" + r.version + ".json" == e.path) r.edited = e.describe() + "; repair: " + e.repair_command();
    }
  }
  for (auto& [n, r] : recs) s.records.push_back(r);
  if (shows(view, "commits")) s.left_out.cut("commits", s.commits, view.limit);
  if (shows(view, "records")) s.left_out.cut("records", s.records, view.limit, true);
  if (shows(view, "uncommitted")) s.left_out.cut("uncommitted paths", s.uncommitted, view.limit);
  return s;
}

namespace {

const char* k_status_how = "--limit N shows up to N of each (0: all), --part picks what to show";

}  // namespace

nlohmann::json to_json(const WorkspaceStatus& s) {
  nlohmann::json commits = nlohmann::json::array();
  for (const auto& c : s.commits) {
    commits.push_back({{"id", c.id}, {"summary", c.summary}, {"author", c.author}, {"time", c.time}});
  }
  nlohmann::json records = nlohmann::json::array();
  for (const auto& r : s.records) {
    records.push_back({{"version", r.version}, {"masked", r.masked}, {"status", r.status}, {"commit", r.commit},
                       {"edited", r.edited.empty() ? nlohmann::json() : nlohmann::json(r.edited)}});
  }
  nlohmann::json j = {{"workspace", s.workspace.string()}};
  if (shows(s.view, "config")) j["config"] = s.config;
  if (shows(s.view, "commits")) j["commits"] = commits;
  if (shows(s.view, "records")) j["records"] = records;
  if (shows(s.view, "uncommitted")) j["uncommitted"] = s.uncommitted;
  s.left_out.annotate(j, k_status_how);
  return j;
}

std::string render_text(const WorkspaceStatus& s) {
  const auto& c = s.config;
  std::string out = "Workspace " + s.workspace.string() + "\n";
  if (shows(s.view, "config")) {
    out += "  name       " + c.name + "\n  platform   " + c.platform + " (" + c.arch + ")\n";
    out += "  framework  " + c.framework + "\n  dtype      " + c.dtype + "\n  shapes     ";
    if (c.shapes.empty()) out += "TBD";
    for (size_t i = 0; i < c.shapes.size(); ++i) out += (i ? ", " : "") + shape_to_string(c.shapes[i]);
    out += "\n  kernel     " + c.kernel_file + "\n  reference  " + c.reference.value_or("none") + "\n";
    out += "  wiki       " + c.wiki_path + (c.wiki_embedded ? " (embedded)" : "") + "\n";
  }
  if (shows(s.view, "commits")) {
    out += "Commits (" + std::to_string(s.commits.size() + s.left_out.count("commits")) + "):\n";
    for (const auto& cm : s.commits) out += "  " + cm.id.substr(0, 12) + " " + cm.summary + "\n";
  }
  if (shows(s.view, "records")) {
    out += "Records (" + std::to_string(s.records.size() + s.left_out.count("records")) + "):\n";
    if (s.records.empty()) out += "  none yet (kgo baseline creates v0)\n";
    for (const auto& r : s.records) {
      if (!r.edited.empty()) out += "  " + r.version + "  EDITED AFTER ITS DECISION: " + r.edited + "\n";
      out += "  " + r.version + (r.masked ? " [masked]" : "") + "  " + (r.status.empty() ? "-" : r.status) + "  " +
             (r.commit.empty() ? "" : r.commit.substr(0, 12)) + "\n";
    }
  }
  if (shows(s.view, "uncommitted") && !s.uncommitted.empty()) {
    out += "Uncommitted changes:\n";
    for (const auto& p : s.uncommitted) out += "  " + p + "\n";
  }
  if (!s.left_out.empty()) out += s.left_out.note(k_status_how) + "\n";
  return out;
}

}  // namespace kgo::core
