#pragma once
// Canonical metric names and the mapping from free text ("H20 HBM3 bandwidth",
// "FP16 / BF16 (Tensor Core)") to them.
#include <optional>
#include <string>
#include <vector>

namespace kgo::wiki {

// At least: hbm_bandwidth, memory_capacity, sm_count, l2_cache, boost_clock, smem_per_sm,
// registers_per_sm, tdp, fp64, fp64_tensor, fp32, tf32_tensor, bf16_tensor, fp16_tensor,
// fp8_tensor, int8_tensor, plus "<tensor metric>_sparse", and launch_latency (measured only).
const std::vector<std::string>& canonical_metrics();

bool is_canonical_metric(const std::string& metric);

// The canonical metric that free text names, or nullopt. A label that names several precisions
// ("FP16 / BF16") maps to the first asked for by `prefer` when given.
std::optional<std::string> metric_from_text(const std::string& text,
                                            const std::string& prefer = "");

// Human label for a canonical metric ("hbm_bandwidth" -> "HBM bandwidth").
std::string metric_label(const std::string& metric);

// Every canonical metric a label names, in the order written: "FP16 / BF16 (Tensor Core)" ->
// {fp16_tensor, bf16_tensor}; "FP32 (Tensor Core / TF32)" -> {tf32_tensor}. Empty when none.
std::vector<std::string> metrics_from_text(const std::string& text);

// The base-unit dimension a metric's values have (see normalize() in index.hpp):
// "bytes_per_s", "flop_per_s", "bytes", "hz", "watts", "seconds" or "count"; "" when unknown.
std::string metric_dimension(const std::string& metric);

// "bf16_tensor_sparse" -> true. A metric is dense unless its name says sparse.
bool is_sparse_metric(const std::string& metric);

}  // namespace kgo::wiki
