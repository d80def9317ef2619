// The alias table: the spellings people use resolve to one product or to an ambiguity naming the
// candidates, never to a neighbouring SKU; number formats and benchmarks are no products.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.hpp"
#include "gpu-wiki-index/index.hpp"
#include "gpu-wiki-index/names.hpp"
#include "gpu-wiki-index/parse.hpp"
#include "tests/test_util.hpp"

namespace kgo::wiki {
namespace {

namespace fs = std::filesystem;

std::string sku(const std::string& name) {
  auto n = read_product_name(name);
  return n ? describe(*n) : "-";
}

TEST(ProductNames, SpellingsOfOneSkuReadAlike) {
  EXPECT_EQ(sku("H100 SXM"), "H100 SXM");
  EXPECT_EQ(sku("H100-SXM5-80GB"), "H100 SXM 80GB");
  EXPECT_EQ(sku("NVIDIA H100 80GB HBM3"), "H100 SXM 80GB HBM3");  // the SXM5 card's driver name
  EXPECT_EQ(sku("H100 GPU accelerator (SXM card)"), "H100 SXM");
  EXPECT_EQ(sku("GeForce RTX 4090"), "RTX 4090");
  EXPECT_EQ(sku("RTX4090"), "RTX 4090");
  EXPECT_EQ(sku("AMD Instinct MI300X"), "MI300X");
  EXPECT_EQ(sku("A100 PCIe 40GB"), "A100 PCIE 40GB");
  EXPECT_EQ(sku("GH100"), "H100 or H800");
}

TEST(ProductNames, NumberFormatsAndBenchmarksAreNoProducts) {
  for (const char* name : {"MXFP4", "NVFP4", "FP8", "E4M3", "UE8M0", "AIME25", "SM100", "HBM3e", "L2"}) {
    EXPECT_FALSE(read_product_name(name)) << name;
  }
  EXPECT_TRUE(number_format("MXFP4"));
  EXPECT_TRUE(number_format("nvfp4"));
  EXPECT_FALSE(number_format("MI300X"));
  for (const char* model : {"H100", "B200", "L40S", "L4", "MI300X", "MI355X", "GB200", "RTX 4090", "RTX PRO 6000"}) {
    EXPECT_TRUE(vendor_family_model(model)) << model;
  }
  for (const char* other : {"AIME25", "GH100", "SM100", "XCD8", "L2"}) EXPECT_FALSE(vendor_family_model(other)) << other;
}

TEST(ProductNames, FitNeverTakesAnotherSku) {
  auto r = [](const char* s) { return *read_product_name(s); };
  EXPECT_EQ(fit(r("H100 SXM"), r("H100 GPU accelerator (SXM card)")), NameFit::full);
  EXPECT_EQ(fit(r("H100 80GB HBM3"), r("H100 SXM")), NameFit::full);
  EXPECT_EQ(fit(r("H100 SXM"), r("H100 PCIe")), NameFit::none);
  EXPECT_EQ(fit(r("H100 SXM"), r("H100")), NameFit::partial);  // the wiki's H100 may be the PCIe card
  EXPECT_EQ(fit(r("A100 80GB"), r("A100 PCIe 40GB")), NameFit::none);
  EXPECT_EQ(fit(r("H200"), r("H100 SXM")), NameFit::none);
  EXPECT_EQ(fit(r("GH100"), r("H100 SXM")), NameFit::full);
}

class ResolveSpellings : public ::testing::Test {
 protected:
  kgo::test::TempDir dir;
  fs::path root = dir.path();
  void write(const std::string& rel, const std::string& text) { kgo::test::write(root / rel, text); }
  std::string error_of(const WikiIndex& idx, const std::string& name) {
    try {
      return "resolved to " + idx.resolve_product(name);
    } catch (const Error& e) {
      return e.what();
    }
  }
};

TEST_F(ResolveSpellings, MachineMadeNamesResolveFromWhatUsersWrite) {
  write("specs.json", R"J({"_header": {"fp32": {"full_name": "FP32", "unit": "TFLOPS"}},
 "a": {"name": "H100 GPU accelerator (SXM card)", "fp32": 67},
 "b": {"name": "H100 GPU accelerator (PCIe card)", "fp32": 51.2},
 "c": {"name": "GeForce RTX 4090", "fp32": 82.6},
 "d": {"name": "Instinct MI300X", "fp32": 163.4}})J");
  WikiIndex idx = WikiIndex::build(root);
  for (const char* sxm : {"H100 SXM", "H100-SXM5-80GB", "H100 80GB HBM3", "nvidia h100 sxm5"}) {
    EXPECT_EQ(idx.resolve_product(sxm), "H100 GPU accelerator (SXM card)") << sxm;
  }
  EXPECT_EQ(idx.resolve_product("H100 PCIe"), "H100 GPU accelerator (PCIe card)");
  EXPECT_EQ(idx.resolve_product("RTX 4090"), "GeForce RTX 4090");
  EXPECT_EQ(idx.resolve_product("RTX4090"), "GeForce RTX 4090");
  EXPECT_EQ(idx.resolve_product("MI300X"), "MI300X");  // the vendor's brand is dropped from the name
  EXPECT_EQ(idx.resolve_product("AMD Instinct MI300X"), "MI300X");
  for (const char* both : {"H100", "GH100"}) {
    std::string why = error_of(idx, both);
    EXPECT_NE(why.find("ambiguous"), std::string::npos) << why;
    EXPECT_NE(why.find("SXM card"), std::string::npos) << why;
    EXPECT_NE(why.find("PCIe card"), std::string::npos) << why;
  }
  ASSERT_EQ(idx.find("H100 GPU accelerator (SXM card)", "fp32").size(), 1u);
  EXPECT_EQ(idx.find("H100 GPU accelerator (SXM card)", "fp32")[0].unit, "TFLOPS");
}

TEST_F(ResolveSpellings, AFormFactorTheWikiDoesNotStateIsNeverGuessed) {
  write("specs.md", "# GPUs\n\nAttribute (Unit) | H100 | A100 PCIe 40GB | A100 SXM4 80GB\n--- | --- | --- | ---\n"
                    "FP32 (TFLOPS) | 51.2 | 19.5 | 19.5\n");
  WikiIndex idx = WikiIndex::build(root);
  std::string why = error_of(idx, "H100 SXM");
  EXPECT_NE(why.find("does not guess"), std::string::npos) << why;
  EXPECT_EQ(idx.resolve_product("A100 80GB"), "A100 SXM4 80GB");
  EXPECT_EQ(idx.resolve_product("A100-SXM4-80GB"), "A100 SXM4 80GB");
  EXPECT_NE(error_of(idx, "A100").find("ambiguous"), std::string::npos);
  EXPECT_NE(error_of(idx, "H200").find("unknown platform"), std::string::npos);
}

TEST_F(ResolveSpellings, BenchmarksAndNumberFormatsAreNotListedAsProducts) {
  write("notes/models.md", "# Models\n\n| Model | AIME25 | GPQA |\n| --- | ---: | ---: |\n| Model A | 87.5 | 71.2 |\n"
                           "| Model B | 79.8 | 68.4 |\n\n| Format | Bits | Block size |\n| --- | --- | --- |\n"
                           "| MXFP4 | 4 | 32 |\n| NVFP4 | 4 | 16 |\n\nOn B200's 8 TB/s HBM3e decode is fast.\n");
  // A kernel compared in a tutorial's table, with a figure of its own, is no product either.
  write("notes/kernels.md", "# Kernels\n\n| Metric | FA2 | cuDNN |\n|---|---|---|\n| Registers/Thread | 255 | 128 |\n");
  WikiIndex idx = WikiIndex::build(root);
  EXPECT_EQ(idx.products(), std::vector<std::string>{"B200"});
  auto sites = idx.definitions("B200");
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].file, "notes/models.md");
  EXPECT_EQ(sites[0].line, 13);
  ASSERT_EQ(idx.facts_at("notes/models.md", 13).size(), 1u);
  EXPECT_EQ(idx.facts_at("notes/models.md", 13)[0].metric, "hbm_bandwidth");
  EXPECT_TRUE(idx.find("B200", "hbm_bandwidth").empty());  // notes never feed spec auto
}

TEST_F(ResolveSpellings, NotesNamesMapOntoTheSpecSheetsSku) {
  write("specs/h100.md", "# NVIDIA H100 SXM (sm_90, Hopper)\n\n- HBM bandwidth: 3.35 TB/s\n");
  write("notes/decode.md", "# Decode\n\n| GPU | Bandwidth |\n| --- | --- |\n| H100 | 3.35 TB/s |\n| GeForce RTX 4090 | 1008 GB/s |\n");
  WikiIndex idx = WikiIndex::build(root);
  EXPECT_EQ(idx.products(), (std::vector<std::string>{"GeForce RTX 4090", "H100 SXM"}));
  ASSERT_EQ(idx.facts_at("notes/decode.md", 5).size(), 1u);
  EXPECT_EQ(idx.facts_at("notes/decode.md", 5)[0].product, "H100 SXM");
  EXPECT_EQ(idx.resolve_product("H100"), "H100 SXM");
}

}  // namespace
}  // namespace kgo::wiki
