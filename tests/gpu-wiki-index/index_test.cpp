// The index over whole wikis: the atrex fixture (a real third-party wiki), product resolution,
// aliases, never-borrow and check().
#include "gpu-wiki-index/index.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>

#include "core/error.hpp"
#include "gpu-wiki-index/units.hpp"
#include "tests/test_util.hpp"

namespace kgo::wiki {
namespace {

const std::filesystem::path k_fixture = KGO_FIXTURE_WIKI;
const std::string k_hopper = "docs/hardware-specs/hardware_specs_hopper.md";

const WikiIndex& fixture() {
  static const WikiIndex index = WikiIndex::build(k_fixture);
  return index;
}

int line_containing(const std::string& rel, const std::string& needle) {
  std::ifstream in(k_fixture / rel);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find(needle) != std::string::npos) return n;
  }
  return 0;
}

TEST(AtrexFixture, H100Bf16DenseIsTheTensorRow) {
  int row = line_containing(k_hopper, "| **FP16 / BF16 (Tensor Core)** | 989.4 | 1,978.9 |");
  ASSERT_GT(row, 0);
  for (const char* metric : {"bf16_tensor", "fp16_tensor"}) {
    auto facts = fixture().find("H100 SXM", metric);
    ASSERT_EQ(facts.size(), 1u) << metric;
    EXPECT_DOUBLE_EQ(facts[0].value, 989.4);
    EXPECT_EQ(facts[0].unit, "TFLOPS");
    EXPECT_EQ(facts[0].file, k_hopper);
    EXPECT_EQ(facts[0].line, row);
    EXPECT_FALSE(facts[0].approximate);
    EXPECT_EQ(facts[0].core, "tensor");
  }
}

TEST(AtrexFixture, SparseFigureIsOnlyEverSparse) {
  for (const auto& f : fixture().facts()) {
    if (f.value == 1978.9 && f.product == "H100 SXM" && f.metric.find("bf16") != std::string::npos) {
      EXPECT_EQ(f.metric, "bf16_tensor_sparse");
    }
  }
  auto sparse = fixture().find("H100 SXM", "bf16_tensor_sparse");
  ASSERT_EQ(sparse.size(), 1u);
  EXPECT_DOUBLE_EQ(sparse[0].value, 1978.9);
  for (const auto& f : fixture().find("H100 SXM", "bf16_tensor")) EXPECT_NE(f.value, 1978.9);
}

TEST(AtrexFixture, H20IsApproximateAndNeverBorrows) {
  auto bf16 = fixture().find("H20", "bf16_tensor");
  ASSERT_EQ(bf16.size(), 1u);
  EXPECT_DOUBLE_EQ(bf16[0].value, 148);
  EXPECT_TRUE(bf16[0].approximate);
  EXPECT_EQ(bf16[0].value_text, "~148");
  EXPECT_EQ(bf16[0].line, line_containing(k_hopper, "| ~148 |"));
  // The H20 section states no L2, clock, FP64 or sparse figures: nothing may come from H100's.
  for (const char* m : {"l2_cache", "boost_clock", "fp64_tensor", "bf16_tensor_sparse", "tf32_tensor"}) {
    EXPECT_TRUE(fixture().find("H20", m).empty()) << m;
  }
  EXPECT_DOUBLE_EQ(fixture().find("H20", "hbm_bandwidth").at(0).value, 4.0);
}

TEST(AtrexFixture, H200NeverBorrowsFromH100) {
  EXPECT_DOUBLE_EQ(fixture().find("H200", "hbm_bandwidth").at(0).value, 4.8);
  EXPECT_DOUBLE_EQ(fixture().find("H200", "memory_capacity").at(0).value, 141);
  // "All other parameters same as H100" states nothing.
  for (const char* m : {"l2_cache", "smem_per_sm", "registers_per_sm", "boost_clock", "bf16_tensor_sparse"}) {
    EXPECT_TRUE(fixture().find("H200", m).empty()) << m;
  }
  for (const auto& f : fixture().facts()) {
    if (f.product == "H200") {
      EXPECT_GE(f.line, line_containing(k_hopper, "## NVIDIA H200"));
      EXPECT_LT(f.line, line_containing(k_hopper, "## Hopper Architecture Key Parameters"));
    }
  }
}

TEST(AtrexFixture, OtherFactsAndProducts) {
  const auto& w = fixture();
  EXPECT_EQ(w.products(), (std::vector<std::string>{"H100 SXM", "H20", "H200", "MI300X", "MI308X"}));
  EXPECT_EQ(w.arch("H100 SXM"), "Hopper");
  EXPECT_EQ(w.arch("MI300X"), "CDNA3");
  EXPECT_DOUBLE_EQ(w.find("H100 SXM", "hbm_bandwidth").at(0).value, 3.35);
  EXPECT_DOUBLE_EQ(w.find("H100 SXM", "registers_per_sm").at(0).value, 65536);
  EXPECT_DOUBLE_EQ(w.find("H100 SXM", "smem_per_sm").at(0).value, 228);
  EXPECT_DOUBLE_EQ(w.find("H100 SXM", "sm_count").at(0).value, 132);
  EXPECT_DOUBLE_EQ(w.find("H100 SXM", "l2_cache").at(0).value, 50);
  EXPECT_DOUBLE_EQ(w.find("H100 SXM", "tf32_tensor").at(0).value, 494.7);
  EXPECT_DOUBLE_EQ(w.find("H100 SXM", "tf32_tensor_sparse").at(0).value, 989.4);
  EXPECT_DOUBLE_EQ(w.find("MI300X", "sm_count").at(0).value, 304);
  EXPECT_DOUBLE_EQ(w.find("MI300X", "bf16_tensor").at(0).value, 1307.4);
  EXPECT_DOUBLE_EQ(w.find("MI308X", "int8_tensor").at(0).value, 412);
  EXPECT_TRUE(w.find("MI308X", "sm_count").empty());
  auto at = w.facts_at(k_hopper, line_containing(k_hopper, "| Memory Bandwidth | 3.35 TB/s |"));
  ASSERT_EQ(at.size(), 1u);
  EXPECT_EQ(at[0].metric, "hbm_bandwidth");
  EXPECT_TRUE(w.facts_at(k_hopper, 1).empty());
}

// Every line that states a hardware quantity or a metric row with a number is either indexed
// or reported by check(); nothing is silently dropped.
TEST(AtrexFixture, EverySpecLookingLineIsIndexedOrReported) {
  std::set<std::pair<std::string, int>> covered;
  for (const auto& f : fixture().facts()) covered.insert({f.file, f.line});
  for (const auto& i : fixture().check()) covered.insert({i.file, i.line});
  const std::regex quantity(R"((^|[^A-Za-z0-9_.])[0-9][0-9,.]*\s*(TB/s|GB/s|TFLOPS|TOPS|GB|MB|KB|MHz|GHz|W|SMs|CUs)\b)");
  int checked = 0;
  for (const std::string rel : {"README.md", k_hopper.c_str(), "docs/hardware-specs/hardware_specs_mi300x.md"}) {
    std::ifstream in(k_fixture / rel);
    std::string line;
    bool fence = false;
    for (int n = 1; std::getline(in, line); ++n) {
      if (line.rfind("```", 0) == 0) fence = !fence;
      if (fence || line.rfind("#", 0) == 0) continue;
      if (std::regex_search(line, quantity)) {
        ++checked;
        EXPECT_TRUE(covered.count({rel, n})) << rel << ":" << n << ": " << line;
      }
    }
  }
  EXPECT_GT(checked, 40);
}

TEST(AtrexFixture, CheckReportsButFindsNoConflicts) {
  auto issues = fixture().check();
  EXPECT_FALSE(issues.empty());
  for (const auto& i : issues) EXPECT_NE(i.kind, "conflict") << i.file << ":" << i.line << " " << i.message;
}

TEST(AtrexFixture, EveryFactValueIsOnItsLine) {
  for (const auto& f : fixture().facts()) {
    std::ifstream in(k_fixture / f.file);
    std::string line;
    for (int n = 1; n <= f.line; ++n) std::getline(in, line);
    EXPECT_NE(line.find(f.value_text), std::string::npos) << f.file << ":" << f.line;
    auto pv = parse_value(f.value_text);
    ASSERT_TRUE(pv) << f.value_text;
    EXPECT_DOUBLE_EQ(pv->value, f.value);
  }
}

// A small wiki with aliases, neighbours and a conflict.
class SmallWiki : public ::testing::Test {
 protected:
  void SetUp() override {
    test::write(dir / "README.md",
                "# Wiki\n\n## Product aliases\n\n| Alias | Product |\n|---|---|\n| H100 | H100 SXM |\n"
                "| Ghost | B999 |\n");
    test::write(dir / "docs/hopper.md",
                "## NVIDIA H100 SXM (sm_90, Hopper)\n- HBM bandwidth: 3.35 TB/s\n"
                "## NVIDIA H100 PCIe (sm_90, Hopper)\n- HBM bandwidth: 2 TB/s\n"
                "## NVIDIA H200 (sm_90, Hopper)\n- HBM bandwidth: 4.8 TB/s\n"
                "## NVIDIA H20 (sm_90, Hopper)\n- SM count: 78\n"
                "## AMD Instinct MI300X (gfx942, CDNA3)\n- HBM bandwidth: 5.3 TB/s\n"
                "## AMD Instinct MI308X (gfx942, CDNA3)\n- HBM bandwidth: 5.3 TB/s\n");
    test::write(dir / "docs/other.md", "## NVIDIA H100 SXM (sm_90, Hopper)\n- HBM bandwidth: 3350 GB/s\n- SM count: 132\n"
                                       "## NVIDIA H200 (sm_90, Hopper)\n- SM count: 132\n- L2 cache: 50 MB\n");
    test::write(dir / "docs/conflict.md", "## NVIDIA H200 (sm_90, Hopper)\n- L2 cache: 60 MB\n");
  }
  test::TempDir dir;
};

TEST_F(SmallWiki, AliasAndExactNames) {
  auto w = WikiIndex::build(dir.path());
  EXPECT_EQ(w.resolve_product("H100"), "H100 SXM");
  EXPECT_EQ(w.resolve_product("h100"), "H100 SXM");
  EXPECT_EQ(w.resolve_product("H100 PCIe"), "H100 PCIe");
  EXPECT_EQ(w.resolve_product("h100-pcie"), "H100 PCIe");
  EXPECT_EQ(w.resolve_product("NVIDIA H200"), "H200");
  EXPECT_EQ(w.resolve_product("H20"), "H20");
  EXPECT_EQ(w.resolve_product("mi300x"), "MI300X");
}

TEST_F(SmallWiki, NeverANeighbour) {
  auto w = WikiIndex::build(dir.path());
  EXPECT_TRUE(w.find("H20", "hbm_bandwidth").empty());  // H20 states no bandwidth here
  EXPECT_EQ(w.find("H200", "hbm_bandwidth").at(0).value, 4.8);
  for (const char* bad : {"H2", "H1000", "MI300", "gfx942", "sm_90", "H 100"}) {
    try {
      std::string got = w.resolve_product(bad);
      ADD_FAILURE() << bad << " resolved to " << got;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::unknown_platform) << bad;
    }
  }
}

TEST_F(SmallWiki, AmbiguousWithoutAliasListsCandidates) {
  test::write(dir / "README.md", "# Wiki\n");
  auto w = WikiIndex::build(dir.path());
  try {
    w.resolve_product("H100");
    FAIL() << "H100 must be ambiguous without an alias";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::unknown_platform);
    std::string m = e.what();
    EXPECT_NE(m.find("ambiguous"), std::string::npos);
    EXPECT_NE(m.find("H100 SXM"), std::string::npos);
    EXPECT_NE(m.find("H100 PCIe"), std::string::npos);
  }
  EXPECT_THROW(w.resolve_product("MI308"), Error);  // a prefix that is not a whole word
}

TEST_F(SmallWiki, UnknownListsKnownProducts) {
  auto w = WikiIndex::build(dir.path());
  try {
    w.resolve_product("RTX9999");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::unknown_platform);
    std::string m = e.what();
    for (const char* p : {"H100 SXM", "H100 PCIe", "H200", "H20", "MI300X", "MI308X"}) {
      EXPECT_NE(m.find(p), std::string::npos) << p;
    }
  }
}

TEST_F(SmallWiki, AliasToAMissingProductFailsAndIsChecked) {
  auto w = WikiIndex::build(dir.path());
  EXPECT_THROW(w.resolve_product("Ghost"), Error);
  bool reported = false;
  for (const auto& i : w.check()) reported = reported || (i.kind == "alias" && i.message.find("B999") != std::string::npos);
  EXPECT_TRUE(reported);
}

TEST_F(SmallWiki, CheckFindsConflictsButNotEqualValuesInOtherUnits) {
  auto w = WikiIndex::build(dir.path());
  std::vector<WikiIssue> conflicts;
  for (const auto& i : w.check()) {
    if (i.kind == "conflict") conflicts.push_back(i);
  }
  ASSERT_EQ(conflicts.size(), 1u);  // H200 L2 50 MB vs 60 MB; 3.35 TB/s == 3350 GB/s is no conflict
  EXPECT_NE(conflicts[0].message.find("l2_cache"), std::string::npos);
  EXPECT_NE(conflicts[0].message.find("H200"), std::string::npos);
  EXPECT_EQ(w.find("H100 SXM", "hbm_bandwidth").size(), 2u);
}

TEST_F(SmallWiki, FrontMatterProductThroughAlias) {
  test::write(dir / "measured/H100-2026-11-20.md",
              "---\nproduct: H100\nkind: measured\n---\n# Measured maxima: H100, 2026-11-20\n- hbm_bandwidth: 3.0 TB/s (copy)\n");
  auto w = WikiIndex::build(dir.path());
  auto m = w.find("H100 SXM", "hbm_bandwidth", true);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_TRUE(m[0].measured);
  EXPECT_EQ(w.find("H100 SXM", "hbm_bandwidth", false).size(), 2u);
  auto products = w.products();
  EXPECT_EQ(std::count(products.begin(), products.end(), "H100"), 0);
}

}  // namespace
}  // namespace kgo::wiki
