#include "specs/operations.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace kgo::specs {
namespace {

using V = std::vector<std::string>;

TEST(Operations, MetricTextMapsOrListsCanonicalNames) {
  EXPECT_EQ(metric_for_text("H20 HBM3 bandwidth"), "hbm_bandwidth");
  EXPECT_EQ(metric_for_text("l2_cache"), "l2_cache");
  EXPECT_EQ(metric_for_text("H100 BF16 tensor sparse"), "bf16_tensor_sparse");
  EXPECT_EQ(metric_for_text("FP16 / BF16 (Tensor Core)", "bf16"), "bf16_tensor");
  try {
    metric_for_text("flux capacitor");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::unknown_metric);
    EXPECT_NE(std::string(e.what()).find("hbm_bandwidth, "), std::string::npos);
  }
}

TEST(Operations, ProductsNamedInTextNeverBorrowNeighbours) {
  wiki::WikiIndex index = wiki::WikiIndex::build(KGO_FIXTURE_WIKI);
  EXPECT_EQ(products_in_text("H20 HBM3 bandwidth", index), V{"H20"});
  EXPECT_EQ(products_in_text("H100 SXM HBM bandwidth", index), V{"H100 SXM"});
  EXPECT_EQ(products_in_text("h100 bf16 tensor", index), V{"H100 SXM"});
  EXPECT_EQ(products_in_text("H200 HBM3e bandwidth", index), V{"H200"});
  EXPECT_EQ(products_in_text("HBM3 bandwidth of BF16 FP8 sm_90", index), V{});
}

TEST(Operations, ComputeMetricsFollowTheDtype) {
  EXPECT_EQ(compute_metrics_for_dtype("fp32"), V{"fp32"});
  EXPECT_EQ(compute_metrics_for_dtype("bf16"), (V{"bf16_tensor", "fp32"}));
  EXPECT_EQ(compute_metrics_for_dtype("fp16"), (V{"fp16_tensor", "fp32"}));
  EXPECT_EQ(compute_metrics_for_dtype("fp8e4m3"), (V{"fp8_tensor", "fp32"}));
  EXPECT_EQ(compute_metrics_for_dtype("tf32"), (V{"tf32_tensor", "fp32"}));
  EXPECT_EQ(compute_metrics_for_dtype("fp64"), (V{"fp64", "fp64_tensor", "fp32"}));
  EXPECT_EQ(compute_metrics_for_dtype("int8"), (V{"int8_tensor", "fp32"}));
  EXPECT_EQ(compute_metrics_for_dtype("something"), V{"fp32"});
}

}  // namespace
}  // namespace kgo::specs
