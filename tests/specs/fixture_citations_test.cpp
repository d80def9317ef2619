// Citation lists against real third-party gpu-wikis (shared/fixtures) and against small wikis
// written after public layouts (tests/data/wikis, origins in its README.md): every correct citation
// should be accepted and every subtly wrong one refused, checked the way `kgo spec add` checks.
// Skips when a shared fixture is absent.
#include <gtest/gtest.h>

#include <iostream>

#include "citation_lists.hpp"

namespace kgo::specs {
namespace {

void run_list(const std::string& fixture_dir, const std::string& name, int min_percent = 95) {
  if (fixture_dir.empty()) GTEST_SKIP() << "fixture " << name << " not found in shared/fixtures";
  lists::Outcome o = lists::run(KGO_SOURCE_DIR, fixture_dir, name);
  EXPECT_EQ(o.bad_lines, "");
  EXPECT_GT(o.correct, 0);
  std::cout << name << ": correct accepted " << o.correct_ok << "/" << o.correct << ", wrong accepted " << o.wrong_ok
            << "/" << o.wrong << "\n" << o.report;
  EXPECT_EQ(o.wrong_ok, 0) << o.report;
  EXPECT_GE(o.correct_ok * 100, o.correct * min_percent) << o.report;
}

TEST(FixtureCitations, AtrexV020Markdown) { run_list(KGO_FIXTURE_WIKI_V020, "atrex-gpu-wiki-v0.2.0"); }

TEST(FixtureCitations, AtrexHeadJsonRecords) { run_list(KGO_FIXTURE_WIKI_HEAD, "atrex-gpu-wiki-head"); }

std::string test_wiki(const std::string& name) { return std::string(KGO_SOURCE_DIR) + "/tests/data/wikis/" + name; }

// One comparison table, a column per product (gmasse/gpu-specs).
TEST(FixtureCitations, ComparisonTable) { run_list(test_wiki("spec-table"), "spec-table", 90); }

// A machine-made JSON collection keyed by slug, units in a field table (gmasse/gpu-specs).
TEST(FixtureCitations, MachineMadeJson) { run_list(test_wiki("spec-json"), "spec-json", 90); }

// Notes pages: a table with a row per GPU, bullets and sentences (0xSero/blackwell-gpu-wiki).
TEST(FixtureCitations, NotesPages) { run_list(test_wiki("blackwell-notes"), "blackwell-notes", 80); }

// Kernel write-ups stating peaks in passing, benchmark tables (0xSero/blackwell-gpu-wiki).
TEST(FixtureCitations, KernelWriteUps) { run_list(test_wiki("kernel-notes"), "kernel-notes", 90); }

}  // namespace
}  // namespace kgo::specs
