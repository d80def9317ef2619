#pragma once
// Choosing and writing the workspace's current memory record for check and bench results.
// Measured fields go through core::record_measurement only.
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace kgo::harness {

struct RecordChoice {
  std::optional<int> version;  // the record to write, or nullopt (see why_not)
  bool created = false;        // v0 was created because there was no record
  std::string why_not;
};

// The latest record, or a fresh v0 when there is none. A record already decided by
// `kgo iterate accept/reject` (quality_gate not PENDING, or a git commit set) is never
// rewritten: the choice is then empty and why_not says to run `kgo memory create`.
// Call with the workspace lock held.
RecordChoice current_record(const std::filesystem::path& workspace);

// Writes the record's environment (not a measured field) from a harness result: GPU, driver,
// CUDA, torch, triton, Python, and the clocks when the result has them.
void write_environment(const std::filesystem::path& workspace, int version, const nlohmann::json& result);

// Refuses (Error(record_error)) unless the harness hashed the same kernel content kgo did
// (`kgo_sha`, taken before the run). A result without a hash is accepted only for a non-PASS
// verdict: a crashed worker may not report one, and a failure cannot vouch for a kernel.
void verify_harness_hash(const std::filesystem::path& kernel, const std::string& kgo_sha,
                         const nlohmann::json& result);

// The stamp's sources: the harness result's `sources` (kernel, ref.py, local imports) that lie in the
// workspace, as workspace-relative paths with their SHA-256.
nlohmann::json stamp_sources(const std::filesystem::path& workspace, const nlohmann::json& result);

// Refuses (Error(record_error)) when the kernel file no longer has the content kgo measured.
void verify_kernel_unchanged(const std::filesystem::path& kernel, const std::string& kgo_sha);

}  // namespace kgo::harness
