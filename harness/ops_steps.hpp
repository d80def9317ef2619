#pragma once
// Internal steps of `kgo ops` (ops.cpp, ops_bench.cpp): the per-op state in logs/ops_state.json,
// the harness target of one variant, and the benchmark phase.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/ops.hpp"

namespace kgo::harness {

// state["ops"][op]["variants"][v], created empty ({attempts: [], bench: null}) when absent.
nlohmann::json& variant_state(nlohmann::json& state, const std::string& op, const std::string& v);
// Identifies the bench settings timings were taken with ("256x256, 1024x1024 x10").
std::string sizes_key(const std::vector<std::vector<long long>>& sizes, int runs);
// Mean of the values, or nullopt when any is missing.
std::optional<double> mean_of(const std::vector<std::optional<double>>& v);
// `key` of the harness size rows, in the order of `sizes` (nullopt where absent).
std::vector<std::optional<double>> per_size(const nlohmann::json& sizes_json,
                                            const std::vector<std::vector<long long>>& sizes, const char* key);
// The op-mode target of one variant file.
Target variant_target(const OpsOptions& o, const PythonInterpreter& py, const std::string& device,
                      const std::string& op, const std::string& entry, const std::filesystem::path& file,
                      const std::filesystem::path& ref);
void ops_progress(const std::string& line);

// Phase 3 benchmark and Phase 4 choice for `out` (its variants already checked) on the GPU.
void bench_op(OpOutcome& out, nlohmann::json& state, const OpsOptions& o, const PythonInterpreter& py,
              const std::filesystem::path& ref, const std::function<void()>& save_state);

}  // namespace kgo::harness
