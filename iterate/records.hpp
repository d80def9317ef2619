#pragma once
// The records of a workspace as the lifecycle sees them: load all, find the last accepted and the
// current best, and the one-line texts (performance, summary, evidence) of commit messages and logs.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kgo::iterate {

namespace fs = std::filesystem;

struct Record {
  int n = 0;
  nlohmann::json j;
  bool masked() const { return j.value("masked", false); }
  std::string gate() const;          // PENDING, PASS, FAIL, TIMEOUT_FAIL
  bool accepted() const;             // gate PASS and a git_commit
  std::optional<double> number(const std::string& dotted) const;
};

// Every record, by version (masked included). Throws Error(record_error) for an unreadable one.
std::vector<Record> load_records(const fs::path& workspace);

// The highest-numbered accepted record (masked included): its kernel is the work tree's kernel.
const Record* last_accepted(const std::vector<Record>& records);
// The accepted, unmasked record with the lowest latency (without performance data: the latest).
const Record* current_best(const std::vector<Record>& records);

// "1234.5 GB/s", "12.34 TFLOP/s", "12.34 TFLOP/s / 1234.5 GB/s", "85.2 us" or "not benchmarked".
std::string perf_text(const nlohmann::json& record);
// The optimization in a few words (action_description, else action_category).
std::string summary_text(const nlohmann::json& record);
// The profile evidence in a few words (evidence_summary, else bottleneck_type), or "not profiled".
std::string evidence_text(const nlohmann::json& record);

// The iterations (v1, v2, ...) whose quality gate is decided: what kgo.json's max_iterations budgets.
int decided_iterations(const std::vector<Record>& records);

// Refuses (Error(record_error)) deciding record `n` when it is masked, already decided, or a
// later record has been decided.
void require_decidable(const std::vector<Record>& records, int n);

}  // namespace kgo::iterate
