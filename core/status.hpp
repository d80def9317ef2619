#pragma once
// The summary `kgo status` prints: configuration, git commits and memory records.
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/bounded.hpp"
#include "core/git.hpp"
#include "core/workspace.hpp"

namespace kgo::core {

struct RecordSummary {
  std::string version;   // "v3"
  bool masked = false;
  std::string status;    // correctness status, or "" when unknown
  std::string commit;    // git_commit, or ""
  std::string edited;    // a decided record edited after its decision: what and the repair; else ""
};

// What `kgo status` shows: some parts (empty: all of config, commits, records, uncommitted) and at
// most `limit` items of each list (0: all): the newest commits and records, the first changed paths.
struct StatusView {
  std::set<std::string> parts;
  std::size_t limit = k_agent_list_limit;
};

// The parts StatusView::parts may name.
const std::vector<std::string>& status_parts();

struct WorkspaceStatus {
  fs::path workspace;
  WorkspaceConfig config;
  std::vector<CommitInfo> commits;       // newest first
  std::vector<RecordSummary> records;    // by version number
  std::vector<std::string> uncommitted;  // paths changed since HEAD
  StatusView view;                       // what to_json and render_text show
  LeftOut left_out;                      // what the view's limit cut
};

// Throws Error(usage) naming the parts when view.parts names an unknown one.
WorkspaceStatus workspace_status(const fs::path& workspace, const StatusView& view);
nlohmann::json to_json(const WorkspaceStatus& s);
std::string render_text(const WorkspaceStatus& s);

}  // namespace kgo::core
