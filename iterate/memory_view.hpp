#pragma once
// Read-only views of the records for `kgo memory list | summary | diff | latest`: result structs
// plus their text and JSON renderings.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kgo::iterate {

namespace fs = std::filesystem;

struct RecordRow {
  std::string version;
  bool masked = false;
  std::string timestamp;
  std::string correctness;  // PASS / FAIL / TIMEOUT_FAIL, or "" when not checked
  std::string gate;         // PENDING / PASS / FAIL / TIMEOUT_FAIL
  std::optional<double> latency_us, tflops, bandwidth_gbps, tflops_pct, bandwidth_pct;
  std::string action;
  std::optional<std::string> commit;
  bool best = false;
};

struct Summary {
  std::vector<RecordRow> rows;
  int masked_left_out = 0;              // masked records not shown
  std::optional<std::string> best;      // the current best version
  std::optional<std::string> latest;    // the highest unmasked version
};

// Rows of all records; masked ones only with `include_masked` (then flagged).
Summary summarize(const fs::path& workspace, bool include_masked);
nlohmann::json to_json(const Summary& s);
std::string render_summary(const Summary& s);
std::string render_list(const Summary& s);

struct DiffEntry {
  std::string path;  // "performance.latency_us", "pitfalls_and_fixes[1].lesson"
  std::optional<nlohmann::json> a, b;  // nullopt: absent on that side
};

// Leaf-by-leaf differences of two records, sorted by path.
std::vector<DiffEntry> diff_records(const nlohmann::json& a, const nlohmann::json& b);
std::string render_diff(const std::string& va, const std::string& vb, const std::vector<DiffEntry>& d);

// The highest-numbered unmasked record (all records with `include_masked`), or nullopt.
std::optional<int> latest_record(const fs::path& workspace, bool include_masked);

}  // namespace kgo::iterate
