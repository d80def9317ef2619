#pragma once
// Shared plumbing of `kgo profile` and `kgo asm`: a scratch directory, running the Python harness's
// `run-once` (optionally under a wrapper such as ncu) and writing a record field.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/process.hpp"
#include "harness/target.hpp"

namespace kgo::profiling {

// A temporary directory removed with everything in it when this goes out of scope.
struct ScratchDir {
  std::filesystem::path dir;
  ~ScratchDir() {
    std::error_code ec;
    if (!dir.empty()) std::filesystem::remove_all(dir, ec);
  }
};

struct HarnessRun {
  core::ProcessResult process;
  nlohmann::json result;  // the harness's result JSON; null when stdout held none
  std::vector<std::string> argv;
};

// Runs `<wrapper...> <python> tools/kgo_harness run-once --request <file>` for `target` at `shape`,
// with `env` added. The request file lives in `scratch`. Never throws for a failing child.
HarnessRun run_once(const harness::Target& target, const std::vector<long long>& shape,
                    const std::vector<std::string>& wrapper, const std::map<std::string, std::string>& env,
                    const std::filesystem::path& scratch, int warmup, int timeout_s);

// The record version a command works on: --version text, else the latest record, else 0.
// Throws Error(record_error) when an explicitly named record is masked.
int choose_version(const std::filesystem::path& workspace, const std::optional<std::string>& version);

// Sets record N's `field` (schema-checked) under the workspace lock. Returns "" on success, or a
// plain note (no record, masked, rejected by the schema: the message) when nothing was written.
std::string update_record_field(const std::filesystem::path& workspace, int n, const std::string& field,
                                const nlohmann::json& value);

// The shape to run: --shape's first, else the workspace's first shape.
std::vector<long long> first_shape(const harness::Target& target);

// Whether the workspace's kernel does matrix products, and why ("op matmul is matmul-like",
// "kernel.py calls tl.dot", "--matmul").
bool matmul_kernel(const std::filesystem::path& workspace, const std::filesystem::path& kernel,
                   std::optional<bool> forced, std::string* why);

}  // namespace kgo::profiling
