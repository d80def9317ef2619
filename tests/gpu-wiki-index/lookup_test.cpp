#include "gpu-wiki-index/lookup.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "tests/test_util.hpp"

namespace kgo::wiki {
namespace {

const std::filesystem::path k_fixture = KGO_FIXTURE_WIKI;

using kgo::test::code_of;

TEST(Lookup, CitedLineForTheFixture) {
  auto w = WikiIndex::build(k_fixture);
  auto r = lookup(w, "H100 SXM", "hbm_bandwidth", false);
  EXPECT_EQ(r.product, "H100 SXM");
  EXPECT_EQ(cited_line(r.fact), "H100 SXM HBM bandwidth: 3.35 TB/s <- <gpu-wiki>/docs/hardware-specs/hardware_specs_hopper.md:L33");
  auto h20 = lookup(w, "h20", "bf16_tensor", false);
  EXPECT_EQ(format_value(h20.fact), "~148 TFLOPS");
  auto big = lookup(w, "H100 SXM", "fp8_tensor", false);
  EXPECT_EQ(format_value(big.fact), "1978.9 TFLOPS");
  EXPECT_EQ(format_value(lookup(w, "H20", "hbm_bandwidth", false).fact), "4.0 TB/s");
  EXPECT_EQ(format_value(lookup(w, "H100 SXM", "registers_per_sm", false).fact), "65536");
}

TEST(Lookup, FreeTextMetricMaps) {
  auto w = WikiIndex::build(k_fixture);
  EXPECT_EQ(lookup(w, "H200", "HBM bandwidth", false).metric, "hbm_bandwidth");
}

TEST(Lookup, EachFailureHasItsExitCode) {
  auto w = WikiIndex::build(k_fixture);
  EXPECT_EQ(code_of([&] { lookup(w, "RTX9999", "hbm_bandwidth", false); }), ExitCode::unknown_platform);
  EXPECT_EQ(code_of([&] { lookup(w, "H100 SXM", "flux_capacitance", false); }), ExitCode::unknown_metric);
  EXPECT_EQ(code_of([&] { lookup(w, "H20", "l2_cache", false); }), ExitCode::missing_spec);
  EXPECT_EQ(code_of([&] { lookup(w, "H200", "smem_per_sm", false); }), ExitCode::missing_spec);
  EXPECT_EQ(code_of([&] { lookup(w, "H100 SXM", "hbm_bandwidth", true); }), ExitCode::missing_spec);
  try {
    lookup(w, "H100 SXM", "flux_capacitance", false);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("hbm_bandwidth"), std::string::npos);
  }
  try {
    lookup(w, "H20", "l2_cache", false);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("H20"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("l2_cache"), std::string::npos);
  }
}

TEST(Lookup, MeasuredTakesTheLatestRecordAndConflictsFail) {
  test::TempDir dir;
  test::write(dir / "specs.md", "## NVIDIA H200 (sm_90, Hopper)\n- HBM bandwidth: 4.8 TB/s\n");
  test::write(dir / "measured/H200-2026-10-01.md", "---\nproduct: H200\nkind: measured\n---\n- hbm_bandwidth: 4.2 TB/s (copy)\n");
  test::write(dir / "measured/H200-2026-11-20.md", "---\nproduct: H200\nkind: measured\n---\n- hbm_bandwidth: 4.31 TB/s (copy)\n");
  auto w = WikiIndex::build(dir.path());
  EXPECT_DOUBLE_EQ(lookup(w, "H200", "hbm_bandwidth", false).fact.value, 4.8);
  auto m = lookup(w, "H200", "hbm_bandwidth", true);
  EXPECT_DOUBLE_EQ(m.fact.value, 4.31);
  EXPECT_TRUE(m.fact.measured);
  EXPECT_EQ(m.fact.file, "measured/H200-2026-11-20.md");
  test::write(dir / "other.md", "## NVIDIA H200 (sm_90, Hopper)\n- HBM bandwidth: 4.9 TB/s\n");
  auto w2 = WikiIndex::build(dir.path());
  EXPECT_EQ(code_of([&] { lookup(w2, "H200", "hbm_bandwidth", false); }), ExitCode::wiki_error);
}

TEST(Lookup, Json) {
  auto w = WikiIndex::build(k_fixture);
  auto j = to_json(lookup(w, "H20", "bf16_tensor", false).fact);
  EXPECT_EQ(j["approximate"], true);
  EXPECT_EQ(j["sparse"], false);
  EXPECT_EQ(j["citation"].get<std::string>().rfind("<gpu-wiki>/docs/hardware-specs/hardware_specs_hopper.md:L", 0), 0u);
}

TEST(FindFacts, FiltersByProductMetricAndKindInWikiOrder) {
  auto w = WikiIndex::build(k_fixture);
  FactFilter f = checked_filter({"h200", "HBM bandwidth", "datasheet"});
  EXPECT_EQ(f.metric, "hbm_bandwidth");
  auto facts = find_facts(w, f);
  ASSERT_FALSE(facts.empty());
  for (const Fact* fact : facts) {
    EXPECT_EQ(fact->product, "H200");
    EXPECT_EQ(fact->metric, "hbm_bandwidth");
    EXPECT_EQ(fact->kind, "datasheet");
  }
  auto all = find_facts(w, {});
  EXPECT_EQ(all.size(), w.facts().size());
  EXPECT_LT(find_facts(w, checked_filter({"", "hbm_bandwidth", ""})).size(), all.size());
}

TEST(FindFacts, BadFiltersFailBeforeAnyWikiWork) {
  EXPECT_EQ(code_of([] { checked_filter({"", "", "rumours"}); }), ExitCode::usage);
  EXPECT_EQ(code_of([] { checked_filter({"", "flux_capacitance", ""}); }), ExitCode::unknown_metric);
}

TEST(SummarizeProducts, CountsFactsAndAliasesPerProduct) {
  auto w = WikiIndex::build(k_fixture);
  auto products = summarize_products(w);
  ASSERT_EQ(products.size(), w.products().size());
  size_t facts = 0;
  for (const auto& p : products) facts += static_cast<size_t>(p.facts + p.measured_facts);
  EXPECT_EQ(facts, w.facts().size());
  size_t docs = 0;
  for (const auto& [kind, n] : documents_per_kind(w)) docs += n;
  EXPECT_GE(docs, 1u);
}

}  // namespace
}  // namespace kgo::wiki
