#pragma once
// Decided records against their decision commit: a record's decision commit is the oldest commit on
// the branch holding it with a quality gate other than PENDING; from then on only its bookkeeping
// fields (git_commit, masked) may change, and only through kgo's commits: the work-tree file equals
// the branch's.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kgo::core {

struct DecidedRecordEdit {
  std::string path;                         // "memory/v3.json"
  std::string gate;                         // the decision: PASS, FAIL, ...
  std::string decision_commit;              // full id
  std::optional<std::string> edit_commit;   // the first later commit holding an edited record; nullopt
                                            // when only the work tree differs
  std::vector<std::string> fields;          // dotted paths that differ from the decision ("(deleted)")

  // One line naming the record, both commits, the fields and how to restore it.
  std::string describe() const;
  // The git command that undoes the edit: `git revert <edit>` or `git checkout -- <path>`.
  std::string repair_command() const;
};

struct DecidedRecords {
  std::map<std::string, std::string> decision_commits;  // "memory/v3.json" -> its decision commit's full id
  std::vector<DecidedRecordEdit> edits;                 // as decided_record_edits
};

// One walk of the branch: every decided record's decision commit, and the edits. Throws
// Error(git_error) when the repository cannot be read.
DecidedRecords decided_records(const std::filesystem::path& workspace);

// Every decided record of the workspace whose committed or work-tree version differs from its
// decision. Throws Error(git_error) when the repository cannot be read.
std::vector<DecidedRecordEdit> decided_record_edits(const std::filesystem::path& workspace);

// Throws Error(record_error) naming the first edited decided record and its repair; nothing when
// none (or the workspace has no git repository).
void refuse_decided_edits(const std::filesystem::path& workspace);

}  // namespace kgo::core
