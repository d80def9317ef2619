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

}  // namespace kgo::core
