#include "core/decided.hpp"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/git.hpp"
#include "core/memory.hpp"
#include "core/strings.hpp"
#include "core/untrusted.hpp"

namespace kgo::core {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// kgo's own commits after a decision set these: the iteration commit a record names, and masking.
const std::vector<std::string> k_bookkeeping = {"git_commit", "masked"};

struct Tracked {
  std::string last_blob;
  json decided;            // the record at its decision commit
  json latest;             // the newest committed version (null once deleted)
  DecidedRecordEdit edit;  // filled once decided
  bool is_decided = false;
};

bool record_file_name(const std::string& name) {
  if (name.size() < 7 || name[0] != 'v' || name.compare(name.size() - 5, 5, ".json") != 0) return false;
  std::string digits = name.substr(1, name.size() - 6);
  return digits.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

std::string DecidedRecordEdit::describe() const {
  std::string d = decision_commit.substr(0, 12);
  std::string s = path + " was edited after its decision (" + gate + " in commit " + d + "; changed: " +
                  join(fields, ", ") + ")";
  if (edit_commit) {
    return s + "; the edit was committed in " + edit_commit->substr(0, 12) + ". The decided record is the one in " +
           d + ": git show " + d + ":" + path;
  }
  return s + "; restore it: git checkout -- " + path;
}

std::string DecidedRecordEdit::repair_command() const {
  return edit_commit ? "git revert --no-edit " + edit_commit->substr(0, 12) : "git checkout -- " + path;
}

void refuse_decided_edits(const fs::path& ws) {
  std::error_code ec;
  if (!fs::exists(ws / ".git", ec)) return;
  auto edits = decided_record_edits(ws);
  if (edits.empty()) return;
  std::string more = edits.size() > 1 ? " (" + std::to_string(edits.size() - 1) + " more: `kgo audit` lists them)" : "";
  throw Error("refused: " + edits.front().describe() + more + ". Repair it first: " + edits.front().repair_command() +
                  " (in the workspace)",
              ExitCode::record_error);
}

std::vector<DecidedRecordEdit> decided_record_edits(const fs::path& ws) { return decided_records(ws).edits; }

DecidedRecords decided_records(const fs::path& ws) {
  GitRepo repo = GitRepo::open(ws);
  std::vector<CommitInfo> log = repo.log();
  std::reverse(log.begin(), log.end());  // oldest first
  std::map<std::string, Tracked> records;  // by path
  for (const auto& c : log) {
    std::map<std::string, bool> present;
    for (const auto& [name, blob] : repo.blobs_at(c.id, "memory")) {
      if (!record_file_name(name)) continue;
      std::string rel = "memory/" + name;
      present[rel] = true;
      Tracked& t = records[rel];
      if (t.last_blob == blob) continue;
      t.last_blob = blob;
      json rec = parse_json_bounded(repo.read_at(c.id, rel).value_or(""));
      t.latest = rec;
      if (!t.is_decided) {
        if (!rec.is_object() || gate_result(rec) == "PENDING") continue;
        t.is_decided = true;
        t.decided = rec;
        t.edit = {rel, gate_result(rec), c.id, std::nullopt, {}};
        continue;
      }
      // The branch's current divergence from the decision, and the commit it began in; a restore ends it.
      auto changed = changed_fields(t.decided, rec, k_bookkeeping);
      if (changed.empty()) t.edit.edit_commit.reset();
      else if (!t.edit.edit_commit) t.edit.edit_commit = c.id;
      t.edit.fields = changed;
    }
    for (auto& [rel, t] : records) {
      if (t.is_decided && !present.count(rel) && !t.last_blob.empty()) {
        if (!t.edit.edit_commit) t.edit.edit_commit = c.id;
        t.edit.fields = {"(deleted)"};
        t.last_blob.clear();
      }
    }
  }
  DecidedRecords out;
  for (auto& [rel, t] : records) {
    if (!t.is_decided) continue;
    out.decision_commits[rel] = t.edit.decision_commit;
    if (!t.edit.edit_commit) {
      std::error_code ec;
      auto st = fs::symlink_status(ws / rel, ec);
      if (ec || !fs::exists(st)) {
        t.edit.fields = {"(deleted)"};
      } else if (!fs::is_regular_file(st)) {
        t.edit.fields = {"(not a regular file)"};
      } else {
        // kgo commits every change it makes to a decided record, so the work tree must equal the branch.
        t.edit.fields = changed_fields(t.latest, parse_json_bounded(try_read_file(ws / rel).value_or("")));
      }
    }
    if (!t.edit.fields.empty()) out.edits.push_back(std::move(t.edit));
  }
  return out;
}

}  // namespace kgo::core
