// Sentences of spec documents that state one figure, and the sentences that must never become a
// fact: kernel results, ridge points, per-block or total sizes, other products, two figures.
#include <gtest/gtest.h>

#include "gpu-wiki-index/parse.hpp"
#include "gpu-wiki-index/parse_common.hpp"

namespace kgo::wiki {
namespace {

FileIndex sheet(const std::string& body) {
  return parse_markdown("specs/h100.md", "# NVIDIA H100 SXM Specifications\n\n## NVIDIA H100 SXM (sm_90, Hopper)\n\n" +
                                             body);
}

bool unparsed_at(const FileIndex& f, int line) {
  for (const auto& i : f.issues) {
    if (i.line == line) return true;
  }
  return false;
}

TEST(ParseProse, ASentenceStatingOneFigureIsAFact) {
  auto f = sheet(
      "The H100 SXM has a theoretical peak bandwidth of 3.35 TB/s.\n"  // line 5
      "It has 80 GB of HBM3 memory. Its boost clock is 1,980 MHz.\n"
      "Peak BF16 dense throughput is about 989.4 TFLOPS (without sparsity).\n"
      "Bandwidth of 26.8 Tb/s is quoted in bits.\n");
  ASSERT_EQ(f.facts.size(), 5u);
  EXPECT_EQ(f.facts[0].metric, "hbm_bandwidth");
  EXPECT_DOUBLE_EQ(f.facts[0].value, 3.35);
  EXPECT_EQ(f.facts[0].line, 5);
  EXPECT_EQ(f.facts[1].metric, "memory_capacity");
  EXPECT_EQ(f.facts[2].metric, "boost_clock");
  EXPECT_DOUBLE_EQ(f.facts[2].value, 1980);
  EXPECT_EQ(f.facts[2].line, 6);
  EXPECT_EQ(f.facts[3].metric, "bf16_tensor");
  EXPECT_TRUE(f.facts[3].approximate);
  EXPECT_EQ(f.facts[4].unit, "Tb/s");  // bits: normalize() makes it 3.35 TB/s
  EXPECT_DOUBLE_EQ(normalize(f.facts[4].value, f.facts[4].unit)->value, 3.35e12);
  EXPECT_TRUE(f.issues.empty());
}

TEST(ParseProse, SentencesThatStateNoDatasheetFigureAreNotFacts) {
  const char* lines[] = {
      "A kernel on this part reached 3.00 TB/s in one test.",
      "Our GEMM achieved 700 TFLOPS on this GPU.",
      "The effective memory bandwidth is ~3000 GB/s in practice.",
      "The ridge point is about 295 FLOPs/Byte.",
      "Shared memory is 99 KB per block.",
      "Its LDS tile size is 32 KB.",
      "The register file totals 33,792 KB.",
      "It offers 132 SMs and a 50 MB L2 cache.",
      "Unlike the H100 PCIe with 2.0 TB/s, this part is faster.",
      "The MI300X L2 cache is 256 MB.",
      "HBM bandwidth | 3.35 TB/s",
  };
  for (const char* line : lines) {
    auto f = sheet(std::string(line) + "\n");
    EXPECT_TRUE(f.facts.empty()) << line << " -> " << (f.facts.empty() ? "" : f.facts[0].metric);
    EXPECT_TRUE(unparsed_at(f, 5)) << line;  // listed by kgo wiki check
  }
  // Plain bytes are no hardware quantity to report, and no fact either.
  EXPECT_TRUE(sheet("LDS bank width is 4 bytes.\n").facts.empty());
}

TEST(ParseProse, NotesProseNamingOneProductGivesNotesFacts) {
  auto notes = parse_markdown("guides/tuning.md", "# Tuning notes\n\nThe H100 SXM has a peak bandwidth of 3.35 TB/s.\n");
  ASSERT_EQ(notes.facts.size(), 1u);
  EXPECT_EQ(notes.facts[0].kind, "notes");
  EXPECT_EQ(notes.facts[0].product, "H100 SXM");
  ASSERT_EQ(notes.products.size(), 1u);
  EXPECT_TRUE(notes.products[0].notes);
  // Two products, a die beside the card, a figure with no words of its own, one metric twice,
  // a kernel's result: no fact.
  for (const char* line : {"The H100 SXM has 3.35 TB/s and the MI300X has 5.3 TB/s of bandwidth.",
                           "The full GH100 die has 60 MB of L2, of which the H100 SXM enables 50 MB.",
                           "The B200 L2 holds 96 MB and 50 MB.", "Our kernel reached 6.1 TB/s on B200."}) {
    auto f = parse_markdown("guides/g.md", std::string("# G\n\n") + line + "\n");
    EXPECT_TRUE(f.facts.empty()) << line << " -> " << (f.facts.empty() ? "" : f.facts[0].metric);
  }
  // Figures labelled by their nearest words; numbers without a hardware unit skipped.
  auto two = parse_markdown("guides/g.md", "# G\n\nThe B200 pairs 192 GB of HBM3e with 8 TB/s of bandwidth; "
                                           "a 70B model runs 2.4x faster on B200's 8 TB/s HBM3e.\n");
  ASSERT_EQ(two.facts.size(), 3u);
  EXPECT_EQ(two.facts[0].metric, "memory_capacity");
  EXPECT_EQ(two.facts[1].metric, "hbm_bandwidth");
  EXPECT_EQ(two.facts[2].metric, "hbm_bandwidth");
  auto counts = parse_markdown("guides/g.md", "# G\n\n- MI300X: 304 CUs and 2.1 GHz boost clock.\n");
  ASSERT_EQ(counts.facts.size(), 2u);
  EXPECT_EQ(counts.facts[0].metric, "sm_count");
  EXPECT_EQ(counts.facts[0].value, 304);
  EXPECT_EQ(counts.facts[1].metric, "boost_clock");
}

TEST(ParseProse, SpecSentencesWithTwoFiguresAreReportedNotGuessed) {
  // A line with one figure read and one not: the fact is kept and the line still reported.
  auto f = sheet("The L2 cache holds 50 MB; the chip has 132 SMs and 3 TB/s.\n");
  ASSERT_EQ(f.facts.size(), 1u);
  EXPECT_EQ(f.facts[0].metric, "l2_cache");
  EXPECT_TRUE(unparsed_at(f, 5));
}

TEST(ParseProse, SentenceSplitKeepsDecimals) {
  EXPECT_EQ(sentences("It is 3.35 TB/s. Its L2 is 50 MB; done!"),
            (std::vector<std::string>{"It is 3.35 TB/s", "Its L2 is 50 MB", "done"}));
  auto fig = prose_figure("Its boost clock is up to 1,980 MHz, per the datasheet");
  ASSERT_TRUE(fig);
  EXPECT_EQ(fig->value, "up to 1,980 MHz");
  EXPECT_FALSE(prose_figure("Its boost clock is fast"));
}

}  // namespace
}  // namespace kgo::wiki
