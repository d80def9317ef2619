#pragma once
// Iteration records `memory/v<N>.json` (schema: schemas/iteration.schema.json).
// Every write is validated against the schema and written atomically. Measured fields
// (correctness, performance) are written only through record_measurement(), which stamps them
// with the SHA-256 of the kernel content that was checked or timed.
// Contract shared by iterate/, harness/ and profiling/.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/json_schema.hpp"

namespace kgo::core {

// "v3" -> 3; throws Error(usage) for anything else.
int parse_version(const std::string& text);

// Existing record numbers, ascending (masked included).
std::vector<int> record_versions(const std::filesystem::path& workspace);

// The highest record number, or nullopt when there are none.
std::optional<int> latest_version(const std::filesystem::path& workspace);

// Reads record N. Throws Error(record_error) when missing, or masked without `include_masked`.
nlohmann::json read_record(const std::filesystem::path& workspace, int n, bool include_masked = false);

// Validates `record` against the schema (Error(schema_invalid) naming the failing field),
// then writes it atomically.
void write_record(const std::filesystem::path& workspace, int n, const nlohmann::json& record);

// Creates record N (default: latest + 1) with defaults; throws when it exists.
int create_record(const std::filesystem::path& workspace, std::optional<int> n = std::nullopt);

// Writes a measured field ("correctness" or "performance") of record N, with a stamp:
// {"tool": tool, "kernel_sha256": sha, "at": time}. The only writer of measured fields.
void record_measurement(const std::filesystem::path& workspace, int n, const std::string& field,
                        nlohmann::json value, const std::string& kernel_sha256,
                        const std::string& tool);

// The writers below take a core::LockedWorkspace themselves (re-entrant).

// "v3" for 3.
std::string version_name(int n);
// `<ws>/memory/v<N>.json`.
std::filesystem::path record_path(const std::filesystem::path& workspace, int n);

// The iteration schema, loaded once from data_file("schemas/iteration.schema.json").
const JsonSchema& iteration_schema();
// Schema check plus "version" == v<n>; throws Error(schema_invalid) naming the failing field.
void validate_record(const nlohmann::json& record, int n);
// The exact text kgo writes for a record (2-space JSON and a newline).
std::string dump_record(const nlohmann::json& record);
// A fresh record N as create_record writes it.
nlohmann::json new_record(int n);

// Seconds since the epoch / ISO 8601 UTC: $SOURCE_DATE_EPOCH when set (reproducible runs), else now.
long long record_epoch_now();
std::string record_time_now();

// Why kgo refuses a hand-written value at `dotted` (measured fields, quality_gate, git_commit,
// masked, version, ...), or nullopt when the field is free to edit.
std::optional<std::string> protected_field(const std::string& dotted);
// A --set value: null, true/false, integers, decimals, JSON ({...} [...] "..."), else the raw text.
nlohmann::json parse_typed_value(const std::string& text);
// The value at `dotted` ("a.b.c"), or nullptr.
const nlohmann::json* find_path(const nlohmann::json& j, const std::string& dotted);
// Sets `dotted`, creating objects on the way; Error(usage) when a parent is not an object.
void set_path(nlohmann::json& j, const std::string& dotted, nlohmann::json value);

struct FieldUpdate {
  std::string path;   // "optimization.action_category"
  std::string value;  // raw text, typed by parse_typed_value
};
// Accepted, rejected and baseline records are final once decided (only mask/unmask touch them):
// Error(record_error) when `rec` is decided.
void refuse_decided(const nlohmann::json& rec, int n);
// `kgo memory update`: applies `sets` to (unmasked) record N; returns the written record.
nlohmann::json update_record(const std::filesystem::path& workspace, int n, const std::vector<FieldUpdate>& sets);
// `kgo memory append`: appends JSON `value` to the array at `field`; returns the written record.
nlohmann::json append_to_record(const std::filesystem::path& workspace, int n, const std::string& field,
                                const std::string& value);

// Why record.<field> ("correctness" or "performance") does not vouch for the kernel with hash
// `kernel_sha256` (no stamp, another kernel, correctness not PASS), or nullopt when it does.
std::optional<std::string> stamp_problem(const nlohmann::json& record, const std::string& field,
                                         const std::string& kernel_sha256);

// "PENDING" unless kgo iterate accept/reject decided the record.
std::string gate_result(const nlohmann::json& record);

}  // namespace kgo::core
