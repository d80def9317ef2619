#include <gtest/gtest.h>

#include "gpu-wiki-index/parse.hpp"

namespace kgo::wiki {
namespace {

std::vector<Fact> with(const FileIndex& f, const std::string& product, const std::string& metric) {
  std::vector<Fact> out;
  for (const auto& x : f.facts) {
    if (x.product == product && x.metric == metric) out.push_back(x);
  }
  return out;
}

Fact one(const FileIndex& f, const std::string& product, const std::string& metric) {
  auto v = with(f, product, metric);
  EXPECT_EQ(v.size(), 1u) << product << " " << metric;
  return v.empty() ? Fact{} : v.front();
}

bool has_issue_at(const FileIndex& f, int line) {
  for (const auto& i : f.issues) {
    if (i.line == line) return true;
  }
  return false;
}

TEST(ProductHeading, NameAndArch) {
  auto h = product_heading("NVIDIA H100 SXM (sm_90, Hopper)");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->name, "H100 SXM");
  EXPECT_EQ(h->arch, "Hopper");
  auto a = product_heading("AMD Instinct MI300X (gfx942 / CDNA3)");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->name, "MI300X");
  EXPECT_EQ(a->arch, "CDNA3");
  EXPECT_EQ(product_heading("AMD MI355X (gfx950, CDNA4)")->name, "MI355X");
  EXPECT_FALSE(product_heading("Hopper Architecture Key Parameters (sm_90)"));
  EXPECT_FALSE(product_heading("Tensor Core Instruction Specs (sm_90 wgmma)"));
  EXPECT_FALSE(product_heading("Memory Specifications"));
  EXPECT_EQ(canonical_product_name("NVIDIA  H200"), "H200");
}

TEST(ParseMarkdown, KeyValueLinesUnderAProductHeading) {
  auto f = parse_markdown("d.md",
                          "# Doc\n\n## NVIDIA H100 SXM (sm_90, Hopper)\n\n- Memory bandwidth: 3.35 TB/s\n"
                          "**L2 cache**: 50 MB\nSM count: 132\nLast updated: 2026-03-18\n");
  EXPECT_DOUBLE_EQ(one(f, "H100 SXM", "hbm_bandwidth").value, 3.35);
  EXPECT_EQ(one(f, "H100 SXM", "hbm_bandwidth").line, 5);
  EXPECT_EQ(one(f, "H100 SXM", "hbm_bandwidth").unit, "TB/s");
  EXPECT_DOUBLE_EQ(one(f, "H100 SXM", "l2_cache").value, 50);
  EXPECT_DOUBLE_EQ(one(f, "H100 SXM", "sm_count").value, 132);
  EXPECT_EQ(f.facts.size(), 3u);
  EXPECT_TRUE(f.issues.empty());
  ASSERT_EQ(f.products.size(), 1u);
  EXPECT_EQ(f.products[0].arch, "Hopper");
}

TEST(ParseMarkdown, MetricsAsRowsWithHeaderUnitAndSparsityColumn) {
  auto f = parse_markdown("d.md",
                          "## NVIDIA H100 SXM (sm_90, Hopper)\n"
                          "| Precision | Peak TFLOPS | With Sparsity | Use Case |\n"
                          "|---|---|---|---|\n"
                          "| **FP16 / BF16 (Tensor Core)** | 989.4 | 1,978.9 | Training |\n"
                          "| **FP32 (CUDA Core)** | 67.0 | \xE2\x80\x94 | General |\n");
  const Fact& bf16 = one(f, "H100 SXM", "bf16_tensor");
  EXPECT_DOUBLE_EQ(bf16.value, 989.4);
  EXPECT_EQ(bf16.unit, "TFLOPS");
  EXPECT_EQ(bf16.core, "tensor");
  EXPECT_EQ(bf16.line, 4);
  EXPECT_DOUBLE_EQ(one(f, "H100 SXM", "fp16_tensor").value, 989.4);
  EXPECT_DOUBLE_EQ(one(f, "H100 SXM", "bf16_tensor_sparse").value, 1978.9);
  EXPECT_EQ(one(f, "H100 SXM", "bf16_tensor_sparse").unit, "TFLOPS");
  EXPECT_EQ(one(f, "H100 SXM", "fp32").core, "cuda");
  EXPECT_TRUE(with(f, "H100 SXM", "fp32_sparse").empty());
  EXPECT_TRUE(f.issues.empty());
}

TEST(ParseMarkdown, EmbeddedFormatOneRowPerFact) {
  auto f = parse_markdown("d.md",
                          "## NVIDIA H200 (sm_90, Hopper)\n\n| Metric | Value | Source |\n|---|---|---|\n"
                          "| HBM bandwidth | 4.8 TB/s | TensorRT-LLM blog |\n"
                          "| BF16 Tensor Core (dense) | UNKNOWN | no vendor document |\n"
                          "| BF16 Tensor Core (sparse) | 1,979 TFLOPS | product page |\n"
                          "| Shared memory per SM | Up to 228 KB | CUDA guide |\n"
                          "| Registers per SM | 65,536 \xC3\x97 32-bit | CUDA guide |\n");
  EXPECT_DOUBLE_EQ(one(f, "H200", "hbm_bandwidth").value, 4.8);
  EXPECT_TRUE(with(f, "H200", "bf16_tensor").empty());  // UNKNOWN is skipped, never invented
  EXPECT_DOUBLE_EQ(one(f, "H200", "bf16_tensor_sparse").value, 1979);
  EXPECT_DOUBLE_EQ(one(f, "H200", "smem_per_sm").value, 228);
  EXPECT_DOUBLE_EQ(one(f, "H200", "registers_per_sm").value, 65536);
  EXPECT_EQ(one(f, "H200", "registers_per_sm").unit, "");
  EXPECT_TRUE(f.issues.empty());
}

TEST(ParseMarkdown, ProductsAsColumns) {
  auto f = parse_markdown("d.md",
                          "# Comparison\n\n| Metric | H100 SXM | H100 PCIe | Source |\n|---|---|---|---|\n"
                          "| Memory bandwidth (TB/s) | 3.35 | 2 | datasheet |\n"
                          "| SMs | 132 | 114 | whitepaper |\n");
  EXPECT_DOUBLE_EQ(one(f, "H100 SXM", "hbm_bandwidth").value, 3.35);
  EXPECT_EQ(one(f, "H100 SXM", "hbm_bandwidth").unit, "TB/s");
  EXPECT_DOUBLE_EQ(one(f, "H100 PCIe", "hbm_bandwidth").value, 2);
  EXPECT_DOUBLE_EQ(one(f, "H100 PCIe", "sm_count").value, 114);
  EXPECT_EQ(one(f, "H100 PCIe", "sm_count").line, 6);
  EXPECT_TRUE(f.issues.empty());
}

TEST(ParseMarkdown, ProductsAsRows) {
  auto f = parse_markdown("d.md",
                          "| GPU | Memory Bandwidth (TB/s) | BF16 TFLOPS |\n|---|---|---|\n"
                          "| MI300X | 5.3 | 1,307.4 |\n| MI308X | 5.3 | 206 |\n");
  EXPECT_DOUBLE_EQ(one(f, "MI300X", "hbm_bandwidth").value, 5.3);
  EXPECT_DOUBLE_EQ(one(f, "MI300X", "bf16_tensor").value, 1307.4);
  EXPECT_EQ(one(f, "MI300X", "bf16_tensor").unit, "TFLOPS");
  EXPECT_DOUBLE_EQ(one(f, "MI308X", "bf16_tensor").value, 206);
}

TEST(ParseMarkdown, ScopeEndsAtASiblingHeading) {
  auto f = parse_markdown("d.md",
                          "## NVIDIA H20 (sm_90, Hopper)\n### Memory\n| Parameter | Value |\n|---|---|\n"
                          "| Memory Bandwidth | 4.0 TB/s |\n## Hopper Architecture Key Parameters (sm_90)\n"
                          "| Parameter | Value |\n|---|---|\n| Max Threads per SM | 2,048 |\n");
  EXPECT_EQ(f.facts.size(), 1u);
  EXPECT_EQ(one(f, "H20", "hbm_bandwidth").line, 5);
  EXPECT_TRUE(has_issue_at(f, 9));  // a spec row with no product is reported, not guessed
}

TEST(ParseMarkdown, FrontMatterScopesTheFileAndMarksMeasured) {
  auto f = parse_markdown("measured/H200-2026-11-20.md",
                          "---\nproduct: H200\nkind: measured\n---\n# Measured maxima: H200, 2026-11-20\n\n"
                          "Method: copy kernels, median of 20.\n\n"
                          "- hbm_bandwidth: 4.31 TB/s (copy, read+write bytes, median of 20, 4 GiB working set)\n"
                          "- hbm_bandwidth_copy: 4.31 TB/s (copy)\n- bf16_tensor: 690.2 TFLOPS (cuBLAS 8192^3)\n"
                          "- launch_latency: 2.1 us (empty kernel, CUDA events, median)\n");
  const Fact& bw = one(f, "H200", "hbm_bandwidth");
  EXPECT_TRUE(bw.measured);
  EXPECT_EQ(bw.line, 9);
  EXPECT_DOUBLE_EQ(bw.value, 4.31);
  EXPECT_TRUE(one(f, "H200", "hbm_bandwidth_copy").measured);
  EXPECT_DOUBLE_EQ(one(f, "H200", "bf16_tensor").value, 690.2);
  EXPECT_EQ(one(f, "H200", "launch_latency").unit, "us");
  EXPECT_TRUE(f.issues.empty());
}

TEST(ParseMarkdown, DatasheetFrontMatterIsNotMeasured) {
  auto f = parse_markdown("h20.md", "---\nproduct: NVIDIA H20\narch: Hopper\n---\n# H20 notes\n\nHBM bandwidth: 4.0 TB/s\n");
  EXPECT_FALSE(one(f, "H20", "hbm_bandwidth").measured);
  ASSERT_EQ(f.products.size(), 1u);
  EXPECT_EQ(f.products[0].arch, "Hopper");
}

TEST(ParseMarkdown, TitleNamingOneProductScopesTheFile) {
  auto f = parse_markdown("docs/hardware/h20_spec.md", "# NVIDIA H20 Specifications\n\n## Memory\n\n- H20 HBM3 bandwidth: 4.0 TB/s\n");
  EXPECT_DOUBLE_EQ(one(f, "H20", "hbm_bandwidth").value, 4.0);
  auto g = parse_markdown("d.md", "# NVIDIA Hopper GPU Hardware Compute Specifications Table\n\n- Memory bandwidth: 3.35 TB/s\n");
  EXPECT_TRUE(g.facts.empty());
  EXPECT_TRUE(has_issue_at(g, 3));
  auto h = parse_markdown("d.md", "# H100 SXM Datasheet\n- SM count: 132\n");
  EXPECT_DOUBLE_EQ(one(h, "H100 SXM", "sm_count").value, 132);
}

TEST(ParseMarkdown, CodeFencesAreIgnored) {
  auto f = parse_markdown("d.md", "## NVIDIA H100 SXM (sm_90, Hopper)\n```\nMemory bandwidth: 9.99 TB/s\n```\n");
  EXPECT_TRUE(f.facts.empty());
  EXPECT_TRUE(f.issues.empty());
}

TEST(ParseMarkdown, SpecLookingProseIsReported) {
  auto f = parse_markdown("d.md",
                          "## NVIDIA H100 SXM (sm_90, Hopper)\n\nThe H100 reaches 3.35 TB/s in practice.\n"
                          "| Parameter | Value |\n|---|---|\n| Memory Bandwidth | 3.0\xE2\x80\x93" "3.35 TB/s |\n"
                          "| Widgets per SM | 12 |\n");
  EXPECT_TRUE(f.facts.empty());
  EXPECT_TRUE(has_issue_at(f, 3));
  EXPECT_TRUE(has_issue_at(f, 6));
  EXPECT_TRUE(has_issue_at(f, 7));
}

TEST(ParseMarkdown, UnitMismatchIsReportedNotIndexed) {
  auto f = parse_markdown("d.md", "## NVIDIA H100 SXM (sm_90, Hopper)\n- Memory bandwidth: 80 GB\n- TDP: 700\n");
  EXPECT_TRUE(f.facts.empty());
  EXPECT_TRUE(has_issue_at(f, 2));
  EXPECT_TRUE(has_issue_at(f, 3));
}

TEST(ParseMarkdown, AliasTableInRootReadme) {
  auto f = parse_markdown("README.md",
                          "# Wiki\n\n## Product aliases\n\n| Alias | Product |\n|---|---|\n| H100 | NVIDIA H100 SXM |\n"
                          "| A100 | A100 SXM 80GB |\n");
  ASSERT_EQ(f.aliases.size(), 2u);
  EXPECT_EQ(f.aliases[0], (std::pair<std::string, std::string>{"H100", "H100 SXM"}));
  auto elsewhere = parse_markdown("docs/README.md",
                                  "## Product aliases\n| Alias | Product |\n|---|---|\n| H100 | H100 PCIe |\n");
  EXPECT_TRUE(elsewhere.aliases.empty());
}

TEST(ParseMarkdown, ProductCellWithCapacityIsNotASpec) {
  auto f = parse_markdown("README.md", "| Product | Document |\n|---|---|\n| A100 SXM 80GB | docs/a.md |\n");
  EXPECT_TRUE(f.issues.empty());
}


const std::string k_section = "## NVIDIA H100 SXM (sm_90, Hopper)\n";

TEST(ParseMarkdown, NotContentIsNeverRead) {
  auto f = parse_markdown("specs/h.md", k_section +
                          "<!-- L2 cache: 99 MB -->\n"
                          "<!--\n- SM count: 1\n-->\n"
                          "\n    TDP: 9 W\n"
                          "- ~~HBM bandwidth: 9 TB/s~~ \n"
                          "- L2 cache: 50 MB\n");
  EXPECT_EQ(f.facts.size(), 1u);
  EXPECT_EQ(one(f, "H100 SXM", "l2_cache").line, 9);
}

TEST(ParseMarkdown, QualifiersVoidOrChangeTheMetric) {
  auto f = parse_markdown("specs/h.md", k_section +
                          "| Parameter | Value |\n|---|---|\n"
                          "| FP8 (Tensor Core, FP32 Accumulate) | 1,978.9 TFLOPS |\n"
                          "| Total Register File | 33,792 KB |\n"
                          "| Total L1 Data Cache / Shared Memory | 33,792 KB |\n"
                          "| LDS Bank Width | 4 bytes |\n"
                          "| Ridge Point (BF16) | ~295 FLOPs/Byte |\n"
                          "| Effective Memory BW | ~3000 GB/s |\n"
                          "| Dynamic Shared Memory Limit | 99 KB / block |\n"
                          "| L2 Cache | 4 MB per XCD |\n"
                          "| Shared Memory | 228 KB / SM |\n");
  EXPECT_EQ(one(f, "H100 SXM", "fp8_tensor").value, 1978.9);
  EXPECT_TRUE(with(f, "H100 SXM", "fp32_tensor").empty());
  EXPECT_TRUE(with(f, "H100 SXM", "register_file_per_sm").empty());
  EXPECT_TRUE(with(f, "H100 SXM", "l1_cache").empty());
  EXPECT_TRUE(with(f, "H100 SXM", "hbm_bandwidth").empty());
  EXPECT_TRUE(with(f, "H100 SXM", "bf16_tensor").empty());
  EXPECT_TRUE(with(f, "H100 SXM", "l2_cache").empty());
  EXPECT_EQ(one(f, "H100 SXM", "smem_per_sm").value, 228);
  EXPECT_EQ(one(f, "H100 SXM", "smem_per_sm").line, 12);
}

TEST(ParseMarkdown, ALineNamingAnotherProductIsNotCredited) {
  auto f = parse_markdown("specs/h.md", k_section +
                          "- MI300X L1 cache: 32 KB\n- CUDA cores: 14,592 (H100 PCIe)\n- CUDA cores: 16,896\n"
                          "| Parameter | Value | Notes |\n|---|---|---|\n| SM count | 132 | same as H200 |\n");
  EXPECT_TRUE(with(f, "H100 SXM", "l1_cache").empty());
  EXPECT_EQ(one(f, "H100 SXM", "cuda_cores").value, 16896);
  EXPECT_EQ(one(f, "H100 SXM", "sm_count").value, 132);  // a notes column does not move the row
}

TEST(ParseMarkdown, MultiValueCellsAreReadWithTheirQualifiers) {
  auto f = parse_markdown("specs/m.md", "## MI355X (gfx950 / CDNA4)\n| Parameter | Value |\n|---|---|\n"
                          "| Peak Compute (BF16) | 5,033.2 TFLOPS (Matrix), 2,516.6 TFLOPS (VFMA) |\n");
  EXPECT_EQ(one(f, "MI355X", "bf16_tensor").value, 5033.2);
  EXPECT_EQ(one(f, "MI355X", "bf16").value, 2516.6);
}

TEST(ParseMarkdown, NotesNameProductsAsNotesAndKernelResultsAreNoFacts) {
  auto notes = parse_markdown("tutorials/t.md", "# FlashMLA\n| GPU | HBM Bandwidth |\n|---|---|\n| H800 | 3 TB/s |\n");
  ASSERT_EQ(notes.products.size(), 1u);  // named as notes name products: a spec sheet's SKU wins
  EXPECT_TRUE(notes.products[0].notes);
  ASSERT_EQ(notes.facts.size(), 1u);
  EXPECT_EQ(notes.facts[0].kind, "notes");
  auto kernel = parse_markdown("specs/k.md", "| Variant | GPU | Bandwidth |\n|---|---|---|\n| Dense decode | H800 | 3000 GB/s |\n");
  EXPECT_TRUE(kernel.facts.empty());
  EXPECT_TRUE(kernel.products.empty());
  auto title = parse_markdown("t.md", "## Flash Attention on MI355X (gfx950)\n- HBM bandwidth: 8 TB/s\n");
  EXPECT_TRUE(title.products.empty());
}

}  // namespace
}  // namespace kgo::wiki
