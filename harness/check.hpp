#pragma once
// `kgo check`: the correctness gate. Runs the harness's check on a target, renders the per-case
// report, and records the verdict into the workspace's current memory record, stamped with the
// SHA-256 of the exact kernel content checked (kgo's own hash must equal the harness's).
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/harness_protocol.hpp"
#include "harness/target.hpp"

namespace kgo::harness {

// The Triton interpreter runs kernels orders of magnitude slower than a GPU, so default
// timeouts (not explicit ones) are scaled by this on --device cpu.
inline constexpr double k_cpu_timeout_scale = 10;

// Defaults from schemas/harness/request.schema.json (core/harness_protocol.hpp).
struct CheckSettings {
  int trials = protocol::request_default::trials;
  std::optional<int> seed;   // --seed; unset: the harness draws one for each request
  std::optional<double> atol, rtol, max_rel_err;
  double case_timeout_s = protocol::request_default::case_timeout_s;
  double total_timeout_s = protocol::request_default::total_timeout_s;
  bool edge_shapes = protocol::request_default::edge_shapes;
  bool progress = false;
};

struct CheckReport {
  Target target;
  CheckSettings settings;
  std::string kernel_sha256;   // kgo's hash of the kernel file before the run
  std::string verdict;         // PASS FAIL TIMEOUT_FAIL CRASH
  std::string message;
  nlohmann::json result;       // the harness's result (or kgo's, when synthesized)
  bool synthesized = false;
  std::string stderr_tail;
  double seconds = 0;
  std::optional<int> recorded_version;  // memory record written
  std::string record_note;              // why nothing was recorded, when so
  bool passed() const { return verdict == "PASS"; }
};

// Runs the check. Never throws for a kernel's failure (that is the verdict); throws
// Error(harness_error) when the harness cannot run, and Error(record_error) when the harness
// checked other content than kgo hashed.
CheckReport run_check(const Target& target, const CheckSettings& settings);

// Writes the report's correctness into the current record of `workspace` (creating v0 when there
// is none), under the workspace lock. A record already decided by accept/reject is left alone and
// the reason is put in record_note.
void record_check(const std::filesystem::path& workspace, CheckReport& report);

// The `correctness` value written to memory (schema: iteration.schema.json#/$defs/correctness,
// without the stamp).
nlohmann::json correctness_value(const CheckReport& report);

// The harness result's `checks` list (one entry per check the harness registers), each with its
// detail object (result[name]) under "details"; kgo names no check itself.
nlohmann::json check_details(const nlohmann::json& result);

// Largest per-case max_abs_err of the harness result, if any case measured one.
std::optional<double> max_abs_err(const nlohmann::json& result);

std::string render_check_text(const CheckReport& report);
// The markdown table of a check result's cases (empty when there are none).
std::string render_cases_table(const nlohmann::json& result);
// `kgo check --json`: a summary (verdict, key figures, failing cases only) sized for an agent's
// context; `detail` adds python, every case (correctness) and the harness's whole result.
nlohmann::json to_json(const CheckReport& report, bool detail = true);

// One line for stderr explaining a non-PASS verdict and what to do.
std::string verdict_explanation(const CheckReport& report);

}  // namespace kgo::harness
