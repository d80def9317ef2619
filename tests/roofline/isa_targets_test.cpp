#include "roofline/isa_targets.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <set>

namespace kgo::roofline {
namespace {

const IsaTarget& target(const std::string& id) {
  for (const IsaTarget& t : isa_targets()) {
    if (t.id == id) return t;
  }
  throw std::runtime_error("no target " + id);
}

bool any_match(const std::vector<std::string>& patterns, const std::string& mnemonic) {
  for (const auto& p : patterns) {
    if (std::regex_search(mnemonic, std::regex(p))) return true;
  }
  return false;
}

std::set<std::string> ids(const std::vector<const IsaTarget*>& ts) {
  std::set<std::string> out;
  for (const IsaTarget* t : ts) out.insert(t->id);
  return out;
}

TEST(IsaTargets, IdsAreUniqueAndPatternsCompile) {
  std::set<std::string> seen;
  for (const IsaTarget& t : isa_targets()) {
    EXPECT_TRUE(seen.insert(t.id).second) << t.id;
    EXPECT_FALSE(t.title.empty());
    EXPECT_FALSE(t.check.empty());
    for (const auto* list : {&t.wanted, &t.wanted_ptx, &t.narrower, &t.forbidden, &t.forbidden_ptx}) {
      for (const auto& p : *list) EXPECT_NO_THROW(std::regex{p}) << t.id << ": " << p;
    }
    if (t.goal == IsaGoal::present) {
      EXPECT_FALSE(t.wanted.empty() && t.wanted_ptx.empty()) << t.id;
    } else {
      EXPECT_FALSE(t.forbidden.empty()) << t.id;
    }
  }
}

TEST(IsaTargets, NvidiaLoadWidthPatterns) {
  const IsaTarget& t = target("nv_global_load_128");
  EXPECT_TRUE(any_match(t.wanted, "LDG.E.128"));
  EXPECT_TRUE(any_match(t.wanted, "LDG.E.128.CONSTANT"));
  EXPECT_FALSE(any_match(t.wanted, "LDG.E.64"));
  EXPECT_FALSE(any_match(t.wanted, "LDG.E"));
  EXPECT_TRUE(any_match(t.narrower, "LDG.E"));
  EXPECT_TRUE(any_match(t.narrower, "LDG.E.64"));
  EXPECT_TRUE(any_match(t.narrower, "LDG.E.U16.CONSTANT"));
  EXPECT_FALSE(any_match(t.narrower, "LDG.E.128"));
  EXPECT_FALSE(any_match(t.narrower, "LDGSTS.E.128"));
  EXPECT_TRUE(any_match(t.wanted_ptx, "ld.global.v4.f32"));
  EXPECT_TRUE(any_match(t.wanted_ptx, "ld.global.nc.v4.b32"));
  EXPECT_TRUE(any_match(t.wanted_ptx, "ld.global.v2.f64"));
  EXPECT_FALSE(any_match(t.wanted_ptx, "ld.global.v2.f32"));
  EXPECT_FALSE(any_match(t.wanted_ptx, "ld.global.f32"));
}

TEST(IsaTargets, SpillsTensorCoresAndAsyncCopies) {
  EXPECT_TRUE(any_match(target("nv_no_local_spill").forbidden, "STL.64"));
  EXPECT_TRUE(any_match(target("nv_no_local_spill").forbidden, "LDL"));
  EXPECT_FALSE(any_match(target("nv_no_local_spill").forbidden, "LDG.E"));
  EXPECT_TRUE(any_match(target("nv_tensor_core_mma").wanted, "HGMMA.64x128x16.F32.BF16"));
  EXPECT_TRUE(any_match(target("nv_tensor_core_mma").wanted, "HMMA.16816.F32.BF16"));
  EXPECT_FALSE(any_match(target("nv_tensor_core_mma").wanted, "FFMA"));
  EXPECT_TRUE(any_match(target("nv_async_tiled_load").wanted, "UTMALDG.2D"));
  EXPECT_TRUE(any_match(target("nv_async_tiled_load").wanted, "LDGSTS.E.BYPASS.128"));
  EXPECT_TRUE(any_match(target("amd_buffer_load_dwordx4").wanted, "buffer_load_dwordx4"));
  EXPECT_FALSE(any_match(target("amd_buffer_load_dwordx4").wanted, "buffer_load_dwordx2"));
  EXPECT_TRUE(any_match(target("amd_buffer_load_dwordx4").narrower, "buffer_load_dwordx2"));
  EXPECT_TRUE(any_match(target("amd_no_scratch").forbidden, "scratch_store_dword"));
  EXPECT_TRUE(any_match(target("amd_mfma").wanted, "v_mfma_f32_32x32x8_bf16"));
}

TEST(IsaTargets, SelectionByArchAndOp) {
  EXPECT_EQ(vendor_of_arch("Hopper"), "nvidia");
  EXPECT_EQ(vendor_of_arch("cdna3"), "amd");
  EXPECT_FALSE(vendor_of_arch("Z80"));
  EXPECT_EQ(ids(targets_for("Hopper", false)), (std::set<std::string>{"nv_global_load_128", "nv_no_local_spill"}));
  EXPECT_EQ(ids(targets_for("Hopper", true)),
            (std::set<std::string>{"nv_global_load_128", "nv_no_local_spill", "nv_tensor_core_mma",
                                   "nv_async_tiled_load"}));
  EXPECT_EQ(ids(targets_for("Ampere", true)),
            (std::set<std::string>{"nv_global_load_128", "nv_no_local_spill", "nv_tensor_core_mma_warp",
                                   "nv_async_tiled_load_cp_async"}));
  EXPECT_EQ(ids(targets_for("CDNA3", true)),
            (std::set<std::string>{"amd_buffer_load_dwordx4", "amd_no_scratch", "amd_mfma", "amd_lds_128"}));
  EXPECT_EQ(ids(targets_for("CDNA3", false)), (std::set<std::string>{"amd_buffer_load_dwordx4", "amd_no_scratch"}));
  EXPECT_TRUE(targets_for("Z80", true).empty());
  EXPECT_EQ(ids(matmul_targets_for("Hopper")), (std::set<std::string>{"nv_tensor_core_mma", "nv_async_tiled_load"}));
}

}  // namespace
}  // namespace kgo::roofline
