#include "specs/verify.hpp"

#include <gtest/gtest.h>

#include <random>

#include "core/error.hpp"
#include "gpu-wiki-index/metrics.hpp"
#include "specs/text.hpp"
#include "tests/test_util.hpp"

namespace kgo::specs {
namespace {

const std::string k_hopper = "docs/hardware-specs/hardware_specs_hopper.md";

WikiView fixture() { return WikiView(wiki::WikiIndex::build(KGO_FIXTURE_WIKI)); }

// The 1-based line of the fixture file holding `needle` (so tests do not hard-code line numbers).
int line_of(const std::string& needle) {
  auto lines = split_lines(test::read(std::filesystem::path(KGO_FIXTURE_WIKI) / k_hopper));
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find(needle) != std::string::npos) return static_cast<int>(i + 1);
  }
  ADD_FAILURE() << needle << " not in fixture";
  return 0;
}

Claim claim(const std::string& metric, const std::string& product, double value, const std::string& unit,
            int line, const std::string& path = k_hopper) {
  return Claim{metric, product, value, format_number(value), unit, Citation{path, line, ""}};
}

std::string rejection(WikiView& w, const Claim& c) {
  try {
    verify_claim(w, c);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::citation_rejected) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "claim was accepted: " << c.metric << " " << c.value << " " << c.unit;
  return "";
}

TEST(Verify, AtrexH100DenseBf16Accepted) {
  WikiView w = fixture();
  int line = line_of("| **FP16 / BF16 (Tensor Core)** | 989.4 |");
  Verified v = verify_claim(w, claim("bf16_tensor", "H100 SXM", 989.4, "TFLOPS", line));
  EXPECT_EQ(v.fact.metric, "bf16_tensor");
  EXPECT_EQ(v.citation.line, line);
  EXPECT_EQ(v.quantity.dimension, "flop_per_s");
  EXPECT_DOUBLE_EQ(v.quantity.value, 989.4e12);
  EXPECT_NE(v.line_text.find("1,978.9"), std::string::npos);
  EXPECT_EQ(v.line_sha256.size(), 64u);
}

TEST(Verify, SparseFigureRefusedAsDense) {
  WikiView w = fixture();
  int line = line_of("| **FP16 / BF16 (Tensor Core)** | 989.4 |");
  std::string msg = rejection(w, claim("bf16_tensor", "H100 SXM", 1978.9, "TFLOPS", line));
  EXPECT_NE(msg.find("sparse figure"), std::string::npos) << msg;
  EXPECT_NE(msg.find("989.4"), std::string::npos) << msg;
  // The sparse figure is accepted when claimed as sparse.
  EXPECT_NO_THROW(verify_claim(w, claim("bf16_tensor_sparse", "H100 SXM", 1978.9, "TFLOPS", line)));
}

TEST(Verify, UnitNormalizationAccepts3350GBs) {
  WikiView w = fixture();
  int line = line_of("| Memory Bandwidth | 3.35 TB/s |");
  EXPECT_NO_THROW(verify_claim(w, claim("hbm_bandwidth", "H100 SXM", 3350, "GB/s", line)));
  EXPECT_NO_THROW(verify_claim(w, claim("hbm_bandwidth", "H100 SXM", 3.35, "TB/s", line)));
  std::string msg = rejection(w, claim("hbm_bandwidth", "H100 SXM", 3.5, "TB/s", line));
  EXPECT_NE(msg.find("not 3.5 TB/s"), std::string::npos) << msg;
  EXPECT_NE(msg.find("the line says"), std::string::npos) << msg;
}

TEST(Verify, WrongProductRefused) {
  WikiView w = fixture();
  int line = line_of("| Memory Bandwidth | 3.35 TB/s |");
  std::string msg = rejection(w, claim("hbm_bandwidth", "H20", 3.35, "TB/s", line));
  EXPECT_NE(msg.find("not for the workspace's platform H20"), std::string::npos) << msg;
}

TEST(Verify, WrongMetricRefused) {
  WikiView w = fixture();
  int line = line_of("| Memory Bandwidth | 3.35 TB/s |");
  std::string msg = rejection(w, claim("l2_cache", "H100 SXM", 3.35, "TB/s", line));
  EXPECT_NE(msg.find("does not state l2_cache"), std::string::npos) << msg;
}

TEST(Verify, WrongDimensionRefused) {
  WikiView w = fixture();
  int line = line_of("| Memory Bandwidth | 3.35 TB/s |");
  std::string msg = rejection(w, claim("hbm_bandwidth", "H100 SXM", 3.35, "TFLOPS", line));
  EXPECT_NE(msg.find("flop_per_s"), std::string::npos) << msg;
}

TEST(Verify, UnknownUnitRefused) {
  WikiView w = fixture();
  int line = line_of("| Memory Bandwidth | 3.35 TB/s |");
  std::string msg = rejection(w, claim("hbm_bandwidth", "H100 SXM", 3.35, "furlongs", line));
  EXPECT_NE(msg.find("not one kgo knows"), std::string::npos) << msg;
}

TEST(Verify, LineWithoutFactsRefused) {
  WikiView w = fixture();
  std::string msg = rejection(w, claim("hbm_bandwidth", "H100 SXM", 3.35, "TB/s", 1));
  EXPECT_NE(msg.find("states no hardware figure"), std::string::npos) << msg;
}

TEST(Verify, MissingFileAndLineRefused) {
  WikiView w = fixture();
  EXPECT_NE(rejection(w, claim("hbm_bandwidth", "H100 SXM", 3.35, "TB/s", 3, "docs/nope.md")).find("does not exist"),
            std::string::npos);
  EXPECT_NE(rejection(w, claim("hbm_bandwidth", "H100 SXM", 3.35, "TB/s", 99999)).find("does not exist"),
            std::string::npos);
}

TEST(Verify, PathsLeavingTheWikiRefused) {
  WikiView w = fixture();
  EXPECT_NE(rejection(w, claim("hbm_bandwidth", "H100 SXM", 3.35, "TB/s", 3, "../x.md")).find("'..'"),
            std::string::npos);
  EXPECT_NE(rejection(w, claim("hbm_bandwidth", "H100 SXM", 3.35, "TB/s", 3, "/etc/passwd")).find("absolute"),
            std::string::npos);
}

TEST(Verify, SymlinkLeavingTheWikiRefused) {
  test::TempDir dir;
  test::write(dir / "outside.md", "## NVIDIA H100 SXM (sm_90, Hopper)\n\n| Parameter | Value |\n|---|---|\n| Memory Bandwidth | 3.35 TB/s |\n");
  test::write(dir / "wiki/README.md", "# wiki\n");
  test::write(dir / "wiki/docs/inside.md", "## NVIDIA H100 SXM (sm_90, Hopper)\n\n| Parameter | Value |\n|---|---|\n| Memory Bandwidth | 3.35 TB/s |\n");
  std::filesystem::create_symlink(dir / "outside.md", dir / "wiki/docs/link.md");
  std::filesystem::create_symlink("inside.md", dir / "wiki/docs/ok_link.md");
  WikiView w(wiki::WikiIndex::build(dir / "wiki"));
  std::string msg = rejection(w, claim("hbm_bandwidth", "H100 SXM", 3.35, "TB/s", 5, "docs/link.md"));
  EXPECT_NE(msg.find("leaves the wiki through a symlink"), std::string::npos) << msg;
  EXPECT_NO_THROW(verify_claim(w, claim("hbm_bandwidth", "H100 SXM", 3.35, "TB/s", 5, "docs/ok_link.md")));
}

TEST(Verify, SectionResolvesToFirstLineStatingTheMetric) {
  WikiView w = fixture();
  Claim c = claim("hbm_bandwidth", "H20", 4.0, "TB/s", 0);
  c.citation.section = "Memory Specifications";
  Verified v = verify_claim(w, c);
  EXPECT_EQ(v.citation.line, line_of("| Memory Bandwidth | 4.0 TB/s |"));
  c.citation.section = "NVIDIA H20 (sm_90, Hopper)";
  EXPECT_EQ(verify_claim(w, c).citation.line, line_of("| Memory Bandwidth | 4.0 TB/s |"));
  c.citation.section = "No Such Heading";
  EXPECT_NE(rejection(w, c).find("no heading 'No Such Heading'"), std::string::npos);
  c.citation.section = "Quick Reference Table";
  EXPECT_NE(rejection(w, c).find("has no line stating hbm_bandwidth"), std::string::npos);
}

TEST(Verify, H20ApproximateAccepted) {
  WikiView w = fixture();
  int line = line_of("| **FP16 / BF16 (Tensor Core)** | ~148 |");
  Verified v = verify_claim(w, claim("bf16_tensor", "H20", 148, "TFLOPS", line));
  EXPECT_TRUE(v.fact.approximate);
  EXPECT_TRUE(make_entry(v, claim("bf16_tensor", "H20", 148, "TFLOPS", line), "H20 bf16").approximate);
}

// Property: any claimed number on any fixture line is accepted only when that line's text
// contains the number (after thousands separators) and the index reads it for that product.
TEST(VerifyProperty, NeverAcceptsANumberTheLineDoesNotState) {
  WikiView w = fixture();
  auto lines = split_lines(test::read(std::filesystem::path(KGO_FIXTURE_WIKI) / k_hopper));
  std::mt19937 rng(7);
  const std::vector<std::string> metrics = {"hbm_bandwidth", "bf16_tensor", "bf16_tensor_sparse", "fp32",
                                            "sm_count", "l2_cache", "fp8_tensor", "memory_capacity"};
  const std::vector<std::string> units = {"TB/s", "GB/s", "TFLOPS", "MB", "GB", "", "MHz"};
  const std::vector<std::string> products = {"H100 SXM", "H20", "H200"};
  int accepted = 0;
  for (int i = 0; i < 4000; ++i) {
    int line = 1 + static_cast<int>(rng() % lines.size());
    auto nums = numbers_in(lines[line - 1]);
    double value = (!nums.empty() && rng() % 2) ? nums[rng() % nums.size()].value
                                                : static_cast<double>(rng() % 5000) / 10.0;
    if (rng() % 3 == 0) value *= 1000;
    Claim c = claim(metrics[rng() % metrics.size()], products[rng() % products.size()], value,
                    units[rng() % units.size()], line);
    try {
      Verified v = verify_claim(w, c);
      ++accepted;
      bool stated = false;
      for (const auto& t : nums) stated = stated || same_value(t.value, v.fact.value);
      EXPECT_TRUE(stated) << lines[line - 1];
      EXPECT_EQ(v.fact.product, c.product);
      EXPECT_EQ(v.fact.metric, c.metric);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::citation_rejected);
    }
  }
  EXPECT_GT(accepted, 0);
}

// Property on generated, mutated wiki markdown: building the index and verifying random claims
// never crashes, and a claim is accepted only when its line holds that number.
TEST(VerifyProperty, MutatedWikiMarkdownNeverAcceptsUnstatedNumbers) {
  std::mt19937 rng(2024);
  const std::vector<std::string> labels = {"HBM bandwidth", "SM count", "L2 cache", "FP32 (CUDA Core)",
                                           "BF16 Tensor Core (dense)", "BF16 Tensor Core (sparse)", "Memory capacity"};
  const std::vector<std::string> units = {"TB/s", "GB/s", "SMs", "MB", "TFLOPS", "GB", ""};
  const std::string noise = "|~,.x\xC3\x97 #*-:0123456789";
  int accepted = 0;
  for (int round = 0; round < 40; ++round) {
    test::TempDir dir;
    std::string md = "# Generated\n\n## NVIDIA Z" + std::to_string(100 + round) + " SXM (sm_90, Hopper)\n\n"
                     "| Metric | Value | Source |\n|---|---|---|\n";
    for (int r = 0; r < 12; ++r) {
      std::string value = (rng() % 5 == 0 ? "~" : "") + format_number(static_cast<double>(rng() % 40000) / 10.0);
      if (rng() % 4 == 0) value = "1," + std::to_string(100 + rng() % 900) + ".5";
      md += "| " + labels[rng() % labels.size()] + " | " + value + " " + units[rng() % units.size()] + " | s |\n";
    }
    for (int m = 0, n = static_cast<int>(rng() % 8); m < n; ++m) {  // byte-level mutations
      size_t at = rng() % md.size();
      if (rng() % 2) md[at] = noise[rng() % noise.size()];
      else md.insert(md.begin() + static_cast<long>(at), noise[rng() % noise.size()]);
    }
    test::write(dir / "README.md", "# w\n");
    test::write(dir / "docs/g.md", md);
    WikiView w(wiki::WikiIndex::build(dir.path()));
    auto lines = split_lines(md);
    for (int i = 0; i < 150; ++i) {
      int line = 1 + static_cast<int>(rng() % lines.size());
      auto nums = numbers_in(lines[line - 1]);
      double value = (!nums.empty() && rng() % 3) ? nums[rng() % nums.size()].value : static_cast<double>(rng() % 4000);
      Claim c{wiki::canonical_metrics()[rng() % wiki::canonical_metrics().size()], "Z" + std::to_string(100 + round) + " SXM",
              value, format_number(value), units[rng() % units.size()], Citation{"docs/g.md", line, ""}};
      try {
        Verified v = verify_claim(w, c);
        ++accepted;
        bool stated = false;
        for (const auto& t : nums) stated = stated || same_value(t.value, v.fact.value);
        EXPECT_TRUE(stated) << lines[line - 1];
        EXPECT_EQ(v.fact.metric, c.metric);
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ExitCode::citation_rejected) << e.what();
      }
    }
  }
  EXPECT_GT(accepted, 0);
}

}  // namespace
}  // namespace kgo::specs
