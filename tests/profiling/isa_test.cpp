#include "profiling/isa.hpp"

#include <gtest/gtest.h>

#include "tests/profiling/test_data.hpp"

namespace kgo::profiling {

// _softmax_rows (examples/softmax/kernel.py) at 8192 columns: BLOCK 8192 over 128 threads is 64 floats per
// thread, i.e. 16 loads and 16 stores of 128 bits, nothing narrower, no spills, no tensor cores.
TEST(SassCountTest, TritonSoftmaxOnH200) {
  IsaCounts c = count_sass(test_data::read("h200_softmax_rows.sass"));
  EXPECT_EQ(c.format, "sass");
  EXPECT_EQ(c.get("global_load_128"), 16);
  EXPECT_EQ(c.get("global_store_128"), 16);
  EXPECT_EQ(c.get("global_load_32") + c.get("global_load_64") + c.get("global_load_narrow"), 0);
  EXPECT_EQ(c.get("local_load") + c.get("local_store"), 0);
  EXPECT_EQ(c.get("hgmma") + c.get("hmma"), 0);
  EXPECT_GT(c.get("mufu"), 0);  // exp
  EXPECT_GT(c.get("barrier"), 0);  // cross-warp reductions
  EXPECT_EQ(c.mnemonics.at("LDG.E.128"), 16);
  int sum = 0;
  for (const auto& [m, n] : c.mnemonics) sum += n;
  EXPECT_EQ(sum, c.instructions);
}

// bench/profile_kernels/matmul_bf16.py: 128x256 tiles, BLOCK_K 64, 8 warps = 2 warpgroups of 64x256, so
// 4 HGMMA.64x256x16 per K step; A (16 KB) + B (32 KB) per stage over 256 threads x 16 B = 12 cp.async per
// stage, issued for 2 prologue stages and 1 per loop trip = 36.
TEST(SassCountTest, TritonBf16MatmulOnH200) {
  IsaCounts c = count_sass(test_data::read("h200_matmul_tiles.sass"));
  EXPECT_EQ(c.get("hgmma"), 4);
  EXPECT_EQ(c.mnemonics.at("HGMMA.64x256x16.F32.BF16"), 4);
  EXPECT_EQ(c.get("ldgsts"), 36);
  EXPECT_EQ(c.mnemonics.at("LDGSTS.E.BYPASS.128"), 36);
  EXPECT_EQ(c.get("global_load_128") + c.get("global_load_32"), 0);  // tiles arrive through cp.async
  EXPECT_GT(c.get("global_store_128"), 0);
  EXPECT_GT(c.get("ldsm"), 0);
  EXPECT_EQ(c.get("local_load") + c.get("local_store"), 0);
}

// tools/ceiling/fma.cu: 8 chains x 16 unrolled FMAs per loop trip.
TEST(SassCountTest, CeilingFmaLoop) {
  IsaCounts c = count_sass(test_data::read("h200_kgo_ceiling_fma.sass"));
  EXPECT_EQ(c.get("ffma"), 8 * 16);
  EXPECT_EQ(c.get("global_store_32"), 1);  // the one result per thread
}

TEST(SassCountTest, PredicatesAndWidths) {
  IsaCounts c = count_sass(
      "        /*0000*/  @P0 LDG.E.128.CONSTANT R4, desc[UR4][R2.64] ;\n"
      "        /*0010*/  @!P1 LDG.E.U16 R6, desc[UR4][R2.64] ;\n"
      "        /*0020*/       LDG.E.64 R8, desc[UR4][R2.64] ;\n"
      "        /*0030*/       LDG.E R9, desc[UR4][R2.64] ;\n"
      "        /*0040*/       STL [R1], R9 ;\n"
      "        /*0050*/       LDL R10, [R1] ;\n"
      "        /*0060*/       BAR.SYNC.DEFER_BLOCKING 0x0 ;\n"
      "        /*0070*/       UTMALDG.2D [UR8], [UR4] ;\n"
      "                                                  /* 0x000fe20000000f00 */\n"
      "        Function : not_an_instruction\n");
  EXPECT_EQ(c.instructions, 8);
  EXPECT_EQ(c.get("global_load_128"), 1);
  EXPECT_EQ(c.get("global_load_narrow"), 1);
  EXPECT_EQ(c.get("global_load_64"), 1);
  EXPECT_EQ(c.get("global_load_32"), 1);
  EXPECT_EQ(c.get("local_store"), 1);
  EXPECT_EQ(c.get("local_load"), 1);
  EXPECT_EQ(c.get("barrier"), 1);
  EXPECT_EQ(c.get("tma"), 1);
}

TEST(PtxCountTest, TritonSoftmaxPtx) {
  IsaCounts c = count_ptx(test_data::read("h200_softmax_rows.ptx"));
  EXPECT_EQ(c.format, "ptx");
  EXPECT_EQ(c.get("global_load_128"), 16);
  EXPECT_EQ(c.get("global_store_128"), 16);
  EXPECT_EQ(c.mnemonics.at("ld.global.v4.b32"), 16);
  EXPECT_EQ(c.get("local_load"), 0);
  EXPECT_GT(c.get("barrier"), 0);
}

TEST(PtxCountTest, WidthsAndAsyncCopies) {
  IsaCounts c = count_ptx(
      "\t@%p1 ld.global.nc.L1::evict_last.v2.f32 {%f1, %f2}, [%rd1];\n"
      "\tld.global.u8 %rs1, [%rd2];\n"
      "\tcp.async.cg.shared.global [%r1], [%rd3], 16;\n"
      "\tcp.async.commit_group;\n"
      "\tcp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd4, {%r3, %r4}], [%r5];\n"
      "\twgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {%f1}, %rd5, %rd6, 1, 1, 1, 0, 0;\n"
      "\tst.local.b32 [%rd7], %r6;\n"
      "\tbar.sync 0;\n"
      "\t// a comment;\n"
      ".visible .entry k(\n");
  EXPECT_EQ(c.get("global_load_64"), 1);
  EXPECT_EQ(c.get("global_load_narrow"), 1);
  EXPECT_EQ(c.get("ldgsts"), 1);
  EXPECT_EQ(c.get("tma"), 1);
  EXPECT_EQ(c.get("hgmma"), 1);
  EXPECT_EQ(c.get("local_store"), 1);
  EXPECT_EQ(c.get("barrier"), 1);
  EXPECT_EQ(c.instructions, 8);
}

// AMD: written for this test in the layout of LLVM's AMDGPU assembly (no AMD GPU was available).
TEST(AmdCountTest, LoadsScratchMfmaAndMetadata) {
  std::string text =
      "\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n"
      "kernel:\n"
      "\tbuffer_load_dwordx4 v[0:3], v4, s[0:3], 0 offen\n"
      "\tbuffer_load_dword v5, v4, s[0:3], 0 offen\n"
      "\tglobal_load_dwordx2 v[6:7], v[8:9], off\n"
      "\tscratch_store_dword off, v5, s33\n"
      "\tv_mfma_f32_32x32x8_bf16 a[0:15], v[0:1], v[2:3], a[0:15]\n"
      "\tds_read_b128 v[10:13], v14\n"
      "\ts_barrier\n"
      "\ts_endpgm\n"
      ".amdgpu_metadata\n"
      "amdhsa.kernels:\n"
      "  - .agpr_count:     16\n"
      "    .group_segment_fixed_size: 8192\n"
      "    .name:           kernel\n"
      "    .private_segment_fixed_size: 64\n"
      "    .sgpr_count:     40\n"
      "    .sgpr_spill_count: 0\n"
      "    .vgpr_count:     96\n"
      "    .vgpr_spill_count: 3\n";
  IsaCounts c = count_any(text);
  EXPECT_EQ(c.format, "amdgcn");
  EXPECT_EQ(c.get("buffer_load_dwordx4"), 1);
  EXPECT_EQ(c.get("buffer_load_narrow"), 1);
  EXPECT_EQ(c.get("global_load_narrow"), 1);
  EXPECT_EQ(c.get("scratch"), 1);
  EXPECT_EQ(c.get("mfma"), 1);
  EXPECT_EQ(c.get("lds_read_b128"), 1);
  EXPECT_EQ(c.get("barrier"), 1);
  auto res = parse_amdgcn_resources(text);
  ASSERT_EQ(res.size(), 1u);
  EXPECT_EQ(res[0].kernel, "kernel");
  EXPECT_EQ(*res[0].registers, 96);
  EXPECT_EQ(*res[0].shared_bytes, 8192);
  EXPECT_EQ(*res[0].stack_bytes, 64);
  EXPECT_EQ(*res[0].spill_count, 3);
}

TEST(CountAnyTest, DetectsTheFormat) {
  EXPECT_EQ(count_any(test_data::read("h200_softmax_rows.sass")).format, "sass");
  EXPECT_EQ(count_any(test_data::read("h200_softmax_rows.ptx")).format, "ptx");
}

TEST(ResourceTest, PtxasReportFromNvcc13) {
  auto r = parse_ptxas_report(test_data::read("sm90_fma_ptxas.txt"));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_NE(r[0].kernel.find("fma_chains"), std::string::npos);
  EXPECT_EQ(*r[0].registers, 26);
  EXPECT_EQ(*r[0].spill_store_bytes, 0);
  EXPECT_EQ(*r[0].spill_load_bytes, 0);
  EXPECT_EQ(*r[0].stack_bytes, 0);
  EXPECT_EQ(*r[0].barriers, 0);
  EXPECT_EQ(*r[0].shared_bytes, 0);
}

TEST(ResourceTest, PtxasReportWithSpillsAndSmem) {
  auto r = parse_ptxas_report(
      "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
      "ptxas info    : Function properties for k\n"
      "    48 bytes stack frame, 24 bytes spill stores, 20 bytes spill loads\n"
      "ptxas info    : Used 255 registers, used 1 barriers, 16384 bytes smem, 368 bytes cmem[0]\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(*r[0].registers, 255);
  EXPECT_EQ(*r[0].spill_store_bytes, 24);
  EXPECT_EQ(*r[0].spill_load_bytes, 20);
  EXPECT_EQ(*r[0].stack_bytes, 48);
  EXPECT_EQ(*r[0].shared_bytes, 16384);
  EXPECT_EQ(*r[0].barriers, 1);
}

// cuobjdump --dump-resource-usage of the kgo_ceiling binary built on the H200: 32 bandwidth kernels
// (4 patterns x 2 loop forms x 2 widths x 2 cache hints), fill, fma_chains, 2 random_fill, empty_kernel.
TEST(ResourceTest, CuobjdumpResourceUsage) {
  auto r = parse_cuobjdump_resources(test_data::read("h200_kgo_ceiling_resources.txt"));
  EXPECT_EQ(r.size(), 37u);
  bool fma = false;
  for (const auto& x : r) {
    ASSERT_TRUE(x.registers) << x.kernel;
    EXPECT_EQ(*x.local_bytes, 0) << x.kernel;
    if (x.kernel.find("fma_chains") != std::string::npos) {
      fma = true;
      EXPECT_EQ(*x.registers, 26);  // the same as ptxas -v reports for this kernel
    }
  }
  EXPECT_TRUE(fma);
}

TEST(ResourceTest, TritonMetadata) {
  auto meta = nlohmann::json::parse(test_data::read("h200_matmul_tiles_triton_meta.json"));
  ResourceUsage r = parse_triton_metadata(meta);
  EXPECT_EQ(r.kernel, "_matmul_tiles");
  // 3 stages of (128x64 + 64x256) bf16 tiles.
  EXPECT_EQ(*r.shared_bytes, 3 * (128 * 64 + 64 * 256) * 2);
}

}  // namespace kgo::profiling
