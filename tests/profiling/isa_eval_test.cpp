#include "profiling/isa_eval.hpp"

#include <gtest/gtest.h>

#include "tests/profiling/test_data.hpp"

namespace kgo::profiling {

namespace {

const IsaCheck* find(const std::vector<IsaCheck>& v, const std::string& id) {
  for (const auto& c : v) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

}  // namespace

TEST(IsaEvalTest, SoftmaxMeetsTheHopperTargets) {
  IsaCounts sass = count_sass(test_data::read("h200_softmax_rows.sass"));
  auto checks = evaluate_isa("Hopper", false, &sass, nullptr, {});
  ASSERT_TRUE(find(checks, "nv_global_load_128"));
  EXPECT_EQ(*find(checks, "nv_global_load_128")->current, 16);
  EXPECT_TRUE(*find(checks, "nv_global_load_128")->met);
  EXPECT_EQ(find(checks, "nv_global_load_128")->narrower, 0);
  EXPECT_TRUE(*find(checks, "nv_no_local_spill")->met);
  EXPECT_FALSE(find(checks, "nv_tensor_core_mma"));  // not a matrix kernel
}

TEST(IsaEvalTest, MatmulTargetsOnHopper) {
  IsaCounts sass = count_sass(test_data::read("h200_matmul_tiles.sass"));
  auto checks = evaluate_isa("Hopper", true, &sass, nullptr, {});
  const IsaCheck* mma = find(checks, "nv_tensor_core_mma");
  ASSERT_TRUE(mma);
  EXPECT_EQ(*mma->current, 4);
  EXPECT_TRUE(*mma->met);
  EXPECT_EQ(mma->matched.at("HGMMA.64x256x16.F32.BF16"), 4);
  const IsaCheck* async = find(checks, "nv_async_tiled_load");
  ASSERT_TRUE(async);
  EXPECT_EQ(*async->current, 36);
  EXPECT_TRUE(*async->met);
  EXPECT_EQ(find(checks, "nv_global_load_128")->basis, "sass");
  nlohmann::json e = progress_entry(*mma);
  EXPECT_EQ(e["metric"], "nv_tensor_core_mma");
  EXPECT_EQ(e["current"], 4);
  EXPECT_EQ(e["met"], true);
  EXPECT_EQ(e.size(), 4u);  // exactly the record's {metric, target, current, met}
}

TEST(IsaEvalTest, PtxIsTheFallbackBasis) {
  IsaCounts ptx = count_ptx(test_data::read("h200_softmax_rows.ptx"));
  auto checks = evaluate_isa("Hopper", false, nullptr, &ptx, {});
  EXPECT_EQ(find(checks, "nv_global_load_128")->basis, "ptx");
  EXPECT_EQ(*find(checks, "nv_global_load_128")->current, 16);
}

TEST(IsaEvalTest, CompilerSpillsFailTheSpillTarget) {
  IsaCounts sass = count_sass("        /*0000*/  LDG.E.128 R4, desc[UR4][R2.64] ;\n");
  ResourceUsage r;
  r.spill_store_bytes = 24;
  r.spill_load_bytes = 20;
  auto checks = evaluate_isa("Hopper", false, &sass, nullptr, {r});
  const IsaCheck* spill = find(checks, "nv_no_local_spill");
  EXPECT_EQ(*spill->current, 0);
  EXPECT_EQ(*spill->spill_counter, 44);
  EXPECT_FALSE(*spill->met);
  EXPECT_TRUE(progress_entry(*spill)["current"].is_string());
}

TEST(IsaEvalTest, NothingToCountIsUnknownNotMet) {
  auto checks = evaluate_isa("Hopper", false, nullptr, nullptr, {});
  for (const auto& c : checks) {
    EXPECT_FALSE(c.met.has_value()) << c.id;
    EXPECT_TRUE(progress_entry(c)["met"].is_null());
  }
}

TEST(IsaEvalTest, AmdTargets) {
  IsaCounts c = count_amdgcn("\tbuffer_load_dwordx4 v[0:3], v4, s[0:3], 0 offen\n\tv_mfma_f32_32x32x8_bf16 a[0:15], v[0:1], v[2:3], a[0:15]\n");
  auto checks = evaluate_isa("CDNA3", true, &c, nullptr, {});
  EXPECT_TRUE(*find(checks, "amd_buffer_load_dwordx4")->met);
  EXPECT_TRUE(*find(checks, "amd_mfma")->met);
  EXPECT_TRUE(*find(checks, "amd_no_scratch")->met);
}

}  // namespace kgo::profiling
