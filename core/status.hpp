#pragma once
// The summary `kgo status` prints: configuration, git commits and memory records.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/git.hpp"
#include "core/workspace.hpp"

namespace kgo::core {

struct RecordSummary {
  std::string version;   // "v3"
  bool masked = false;
  std::string status;    // correctness status, or "" when unknown
  std::string commit;    // git_commit, or ""
};

struct WorkspaceStatus {
  fs::path workspace;
  WorkspaceConfig config;
  std::vector<CommitInfo> commits;       // newest first
  std::vector<RecordSummary> records;    // by version number
  std::vector<std::string> uncommitted;  // paths changed since HEAD
};

WorkspaceStatus workspace_status(const fs::path& workspace);
nlohmann::json to_json(const WorkspaceStatus& s);
std::string render_text(const WorkspaceStatus& s);

}  // namespace kgo::core
