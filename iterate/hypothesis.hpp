#pragma once
// A plan's `## Hypothesis`: exactly one change, the evidence it rests on (metric = value, read back
// from the cited profiles/ or memory/ file), the expected movement as signed percentages of
// kgo-measured performance fields, a decision rule, and optionally the experience advice it follows.
// In a workspace where nothing was timed or profiled (a CPU session) evidence and expected may be
// `none` and the decision rule correctness-only. After accept / reject, the hypothesis and predicted
// against measured go into the record.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "iterate/records.hpp"

namespace kgo::iterate {

namespace fs = std::filesystem;

struct Evidence {
  std::string metric;  // "dram_pct"
  double value = 0;
  std::string file;    // "profiles/v2/profile.json" or "memory/v2.json"
  std::string text() const;
};

struct Expectation {
  std::string metric;         // a performance field: latency_us, bandwidth_gbps, ...
  double change_pct = 0;      // -20: expected to fall by 20%
};

struct Hypothesis {
  std::string change;
  std::vector<Evidence> evidence;
  bool evidence_none = false;          // "- evidence: none"
  std::vector<Expectation> expected;
  bool expected_none = false;          // "- expected: none"
  std::string decision_rule;
  std::optional<std::string> follows;  // experience advice id, absent for "none"
};

// Parses the Hypothesis section body; syntax problems and the rules for a workspace that was
// `timed` (something timed or profiled there: evidence and expected numbers required, a decision
// rule with a number; untimed: `none` allowed, a correctness-only rule) go to `problems`.
Hypothesis parse_hypothesis(const std::string& body, std::vector<std::string>& problems, bool timed = true);

// Whether anything in the workspace was timed or profiled: a profiles/v<K>/profile.json or an
// unmasked record with a performance section.
bool workspace_timed(const fs::path& workspace);

// A number as a plan may quote it: decimal or scientific notation (6.76e-08), as kgo prints it.
std::optional<double> parse_quoted_number(const std::string& text);

// Whether `quoted` states `actual` to within 0.5% of it (relative; 0 only as 0).
bool quotes(double quoted, double actual);

// Each evidence value read back from its file in the workspace; problems for a missing file,
// metric or a value that differs from the file's.
void verify_evidence(const fs::path& workspace, const Hypothesis& h, std::vector<std::string>& problems);

// The plan's hypothesis (nullopt when the plan or its section is missing or does not parse).
std::optional<Hypothesis> plan_hypothesis(const fs::path& workspace, int n);

// {"baseline": "v2"|null, "change", "evidence": [...], "decision_rule", "correctness",
//  "checks": [{metric, predicted_pct, measured_pct, held}]} for record `rec` against the last accepted
// record before it with stamped performance; measured_pct and held are null where either side has
// no stamped number for the metric.
nlohmann::json predicted_vs_measured(const Hypothesis& h, const std::vector<Record>& records, int n,
                                     const nlohmann::json& rec);

// One line of a record's hypothesis and how it fared, for the Iteration Log and the report:
// "latency_us -20% / -14.8% held" per expectation, or "correctness only (rule) / PASS"; "" when the
// record has no prediction.
std::string prediction_text(const nlohmann::json& rec);

// The plan's hypothesis as the record's optimization.hypothesis text.
std::string hypothesis_text(const Hypothesis& h);

}  // namespace kgo::iterate
