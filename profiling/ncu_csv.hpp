#pragma once
// Parser for Nsight Compute `--csv` output: the raw page (one row per launch, row 2 = units) and
// the details page (one row per metric, plus rule rows). Numbers may carry thousands separators
// ("3,199,406,586.67"); `==PROF==` / `==WARNING==` / `==ERROR==` lines are collected, not parsed.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kgo::profiling {

struct MetricValue {
  std::string text;              // the cell as printed
  std::string unit;              // from the units row / "Metric Unit" column; "" when none
  std::optional<double> number;  // parsed when the cell is a number
};

struct NcuRule {  // details page only: e.g. SOLBottleneck / INF / "This workload is utilizing ..."
  std::string section, name, type, description;
};

struct NcuLaunch {
  int id = 0;                    // ncu's launch ID within the report
  std::string process_name;
  std::string kernel;            // "Kernel Name" as printed (demangled unless --kernel-name-base)
  std::string block, grid;       // "(128, 1, 1)"
  std::string device, cc;        // "0", "9.0"
  // Raw metric name -> value. On the details page, values are keyed by "<Section>/<Label>" and,
  // for the Speed-of-Light labels ncu documents, also by the raw metric name they stand for.
  std::map<std::string, MetricValue> metrics;
  std::vector<NcuRule> rules;

  std::optional<double> number(const std::string& metric) const;
  // The first of `metrics` present as a number.
  std::optional<double> first_number(const std::vector<std::string>& names) const;
};

struct NcuReport {
  std::string page;                   // "raw" or "details"; "" when no table was found
  std::vector<NcuLaunch> launches;    // in report order
  std::vector<std::string> messages;  // ==PROF== / ==WARNING== / ==ERROR== lines, in order
};

// RFC 4180 rows: quoted fields, doubled quotes, commas and newlines inside quotes.
std::vector<std::vector<std::string>> parse_csv_rows(std::string_view text);

// "1,089,399" -> 1089399; "3,199,406,586.67" -> 3199406586.67; "91.14" -> 91.14; a locale that
// swaps separators ("1.089.399,5") is recognized when both kinds appear. nullopt for "n/a",
// "(128, 1, 1)", "" and other non-numbers.
std::optional<double> parse_ncu_number(std::string_view text);

// Parses a whole ncu CSV log (either page). Never throws on odd input: an unrecognized table
// yields page "" and no launches, so the caller can report the messages instead.
NcuReport parse_ncu_csv(std::string_view text);

// Speed-of-Light label on the details page -> raw metric name (external-anchors.md §5.4).
std::optional<std::string> raw_name_for_label(const std::string& label);

}  // namespace kgo::profiling
