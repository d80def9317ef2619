#include "gpu-wiki-index/metrics.hpp"

#include <gtest/gtest.h>

namespace kgo::wiki {
namespace {

using V = std::vector<std::string>;

TEST(Metrics, RequiredCanonicalNames) {
  for (const char* m : {"hbm_bandwidth", "memory_capacity", "sm_count", "l2_cache", "boost_clock", "smem_per_sm",
                        "registers_per_sm", "tdp", "fp64", "fp64_tensor", "fp32", "tf32_tensor", "bf16_tensor",
                        "fp16_tensor", "fp8_tensor", "int8_tensor", "bf16_tensor_sparse", "launch_latency",
                        "hbm_bandwidth_copy", "hbm_bandwidth_read", "hbm_bandwidth_write", "hbm_bandwidth_triad"}) {
    EXPECT_TRUE(is_canonical_metric(m)) << m;
    EXPECT_FALSE(metric_dimension(m).empty()) << m;
  }
  EXPECT_FALSE(is_canonical_metric("bandwidth"));
  EXPECT_FALSE(is_canonical_metric("fp32_sparse"));
}

TEST(Metrics, SparseIsOnlyByName) {
  EXPECT_TRUE(is_sparse_metric("bf16_tensor_sparse"));
  EXPECT_FALSE(is_sparse_metric("bf16_tensor"));
  EXPECT_FALSE(is_sparse_metric("hbm_bandwidth"));
}

TEST(Metrics, AtrexLabels) {
  EXPECT_EQ(metrics_from_text("FP16 / BF16 (Tensor Core)"), (V{"fp16_tensor", "bf16_tensor"}));
  EXPECT_EQ(metrics_from_text("**FP32 (Tensor Core / TF32)**"), (V{"tf32_tensor"}));
  EXPECT_EQ(metrics_from_text("FP32 (CUDA Core)"), (V{"fp32"}));
  EXPECT_EQ(metrics_from_text("FP64 (Tensor Core)"), (V{"fp64_tensor"}));
  EXPECT_EQ(metrics_from_text("FP64 (Vector)"), (V{"fp64"}));
  EXPECT_EQ(metrics_from_text("FP64 (Matrix)"), (V{"fp64_tensor"}));
  EXPECT_EQ(metrics_from_text("FP8 / INT8 (Matrix)"), (V{"fp8_tensor", "int8_tensor"}));
  EXPECT_EQ(metrics_from_text("VRAM"), (V{"memory_capacity"}));
  EXPECT_EQ(metrics_from_text("Memory Bandwidth"), (V{"hbm_bandwidth"}));
  EXPECT_EQ(metrics_from_text("Streaming Multiprocessors (SMs)"), (V{"sm_count"}));
  EXPECT_EQ(metrics_from_text("Compute Units"), (V{"sm_count"}));
  EXPECT_EQ(metrics_from_text("Peak Clock"), (V{"boost_clock"}));
  EXPECT_EQ(metrics_from_text("Registers per SM"), (V{"registers_per_sm"}));
  EXPECT_EQ(metrics_from_text("Max Registers per Thread"), (V{"registers_per_thread"}));
  EXPECT_EQ(metrics_from_text("Shared Memory per SM"), (V{"smem_per_sm"}));
  EXPECT_EQ(metrics_from_text("LDS per CU"), (V{"smem_per_sm"}));
  EXPECT_EQ(metrics_from_text("L2 Cache"), (V{"l2_cache"}));
  EXPECT_EQ(metrics_from_text("TDP"), (V{"tdp"}));
  EXPECT_EQ(metrics_from_text("Tensor Cores (4th gen)"), (V{"tensor_cores"}));
  EXPECT_EQ(metrics_from_text("CUDA Cores"), (V{"cuda_cores"}));
  EXPECT_TRUE(metrics_from_text("Memory Type").empty());
  EXPECT_TRUE(metrics_from_text("Warp Groups").empty());
  EXPECT_TRUE(metrics_from_text("Last Updated").empty());
}

TEST(Metrics, EmbeddedWikiLabels) {
  EXPECT_EQ(metrics_from_text("BF16 Tensor Core (dense)"), (V{"bf16_tensor"}));
  EXPECT_EQ(metrics_from_text("BF16 Tensor Core (sparse)"), (V{"bf16_tensor_sparse"}));
  EXPECT_EQ(metrics_from_text("FP8 Matrix Core (sparse)"), (V{"fp8_tensor_sparse"}));
  EXPECT_EQ(metrics_from_text("HBM bandwidth"), (V{"hbm_bandwidth"}));
  EXPECT_EQ(metrics_from_text("Boost clock (peak engine clock)"), (V{"boost_clock"}));
  EXPECT_EQ(metrics_from_text("Registers per CU (VGPR file)"), (V{"register_file_per_sm"}));
  EXPECT_EQ(metrics_from_text("Max threads per SM"), (V{"threads_per_sm"}));
  EXPECT_EQ(metrics_from_text("TDP (max board power)"), (V{"tdp"}));
  EXPECT_EQ(metrics_from_text("Compute units (CUs)"), (V{"sm_count"}));
}

TEST(Metrics, FreeTextAndCanonicalNames) {
  EXPECT_EQ(metric_from_text("H20 HBM3 bandwidth").value_or(""), "hbm_bandwidth");
  EXPECT_EQ(metric_from_text("hbm_bandwidth_copy").value_or(""), "hbm_bandwidth_copy");
  EXPECT_EQ(metric_from_text("bf16_tensor").value_or(""), "bf16_tensor");
  EXPECT_EQ(metric_from_text("launch latency").value_or(""), "launch_latency");
  EXPECT_EQ(metric_from_text("NVLink bandwidth").value_or(""), "interconnect_bandwidth");
  EXPECT_FALSE(metric_from_text("L2 bandwidth").has_value());
  EXPECT_FALSE(metric_from_text("the weather").has_value());
  EXPECT_FALSE(metric_from_text("FP32 (Vector) with sparsity").has_value());
}

TEST(Metrics, PreferPicksAmongSeveral) {
  EXPECT_EQ(metric_from_text("FP16 / BF16 (Tensor Core)").value_or(""), "fp16_tensor");
  EXPECT_EQ(metric_from_text("FP16 / BF16 (Tensor Core)", "bf16_tensor").value_or(""), "bf16_tensor");
  EXPECT_EQ(metric_from_text("FP16 / BF16 (Tensor Core)", "bf16").value_or(""), "bf16_tensor");
  EXPECT_EQ(metric_from_text("FP16 / BF16 (Tensor Core)", "fp8_tensor").value_or(""), "fp16_tensor");
}

// `kgo wiki lookup` prints metric_label(); `kgo spec add` reads it back as free text.
TEST(Metrics, EveryLabelMapsBackToItsMetric) {
  for (const auto& m : canonical_metrics()) {
    EXPECT_EQ(metric_from_text(metric_label(m)).value_or("<none>"), m) << metric_label(m);
  }
}

TEST(Metrics, Labels) {
  EXPECT_EQ(metric_label("hbm_bandwidth"), "HBM bandwidth");
  EXPECT_EQ(metric_label("not_a_metric"), "not_a_metric");
  for (const auto& m : canonical_metrics()) EXPECT_FALSE(metric_label(m).empty());
}

}  // namespace
}  // namespace kgo::wiki
