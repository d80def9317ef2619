#include "iterate/plan.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/markdown.hpp"
#include "core/memory.hpp"
#include "core/resources.hpp"
#include "tests/iterate/workspace_fixture.hpp"

namespace kgo::iterate {

namespace {

bool mentions(const PlanCheck& c, const std::string& text) {
  for (const auto& p : c.problems) {
    if (p.find(text) != std::string::npos) return true;
  }
  return false;
}

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? s : s.replace(at, from.size(), to);
}

}  // namespace

TEST(PlanCheckTest, AFilledPlanPasses) {
  PlanCheck c = check_plan_text(test::good_plan(2, "vectorized_load"));
  EXPECT_TRUE(c.ok()) << (c.problems.empty() ? "" : c.problems[0]);
  EXPECT_EQ(c.action_category, "vectorized_load");
}

TEST(PlanCheckTest, TheUnfilledTemplateFailsOnEverySection) {
  std::string text = core::render_template(core::read_file(core::data_file("templates/plan.md")), {{"n", "1"}});
  PlanCheck c = check_plan_text(text);
  // The Hypothesis template carries a default `follows: none`, so it is refused for its missing change instead.
  for (const auto& s : plan_sections())
    EXPECT_TRUE(mentions(c, s == "Hypothesis" ? "Hypothesis: no `- change:` line" : "section '" + s + "' is empty")) << s;
  EXPECT_TRUE(mentions(c, "names no action category"));
}

TEST(PlanCheckTest, OneActionCategoryOnly) {
  std::string good = test::good_plan(2, "swizzle");
  PlanCheck two_lines = check_plan_text(replaced(good, "- description:", "- action_category: double_buffering\n- description:"));
  EXPECT_TRUE(mentions(two_lines, "names 2 action categories (swizzle, double_buffering)"));
  for (const char* many : {"swizzle + double_buffering", "swizzle, tiling", "swizzle and tiling", "swizzle/tiling"}) {
    PlanCheck c = check_plan_text(replaced(good, "action_category: swizzle", std::string("action_category: ") + many));
    EXPECT_TRUE(mentions(c, "more than one action category")) << many;
    EXPECT_EQ(c.action_category, "");
  }
  EXPECT_TRUE(mentions(check_plan_text(replaced(good, "action_category: swizzle", "action_category: Swizzle!")),
                       "not a snake_case name"));
}

TEST(PlanCheckTest, EmptyOrMissingSections) {
  std::string good = test::good_plan(2, "swizzle");
  EXPECT_TRUE(mentions(check_plan_text(replaced(good, "DRAM throughput up.", "<!-- later -->")),
                       "section 'Expected Impact' is empty"));
  EXPECT_TRUE(mentions(check_plan_text(replaced(good, "## Risks and Rollback", "## Risks")),
                       "section '## Risks and Rollback' is missing"));
}

TEST(PlanCheckTest, SearchLogOrderGpuWikiThenProjectThenWeb) {
  std::string good = test::good_plan(2, "swizzle");
  std::string web_first = replaced(replaced(good, "| [public-web] |  |  |  |\n", ""),
                                   "| [gpu-wiki] |", "| [public-web] | swizzle | xor | high |\n| [gpu-wiki] |");
  EXPECT_TRUE(mentions(check_plan_text(web_first), "a gpu-wiki search comes after a public-web search"));
  std::string no_wiki = replaced(good, "| [gpu-wiki] | vector loads | 128-bit loads | high |", "| [gpu-wiki] |  |  |  |");
  no_wiki = replaced(no_wiki, "| [ref-project] |  |  |  |", "| [ref-project] | x | y | z |");
  EXPECT_TRUE(mentions(check_plan_text(no_wiki), "no gpu-wiki search recorded"));
  EXPECT_TRUE(mentions(check_plan_text(replaced(good, "[ref-project] |  |", "[forum] | a |")), "unknown source"));
}

TEST(PlanNewTest, WritesTheTemplateForTheRightVersion) {
  test::TempDir dir;
  auto ws = test::make_workspace(dir);
  PlanNewResult r = new_plan(ws, std::nullopt, false, "first try");
  EXPECT_EQ(r.version, 0);  // no records yet: the plan's record is made with it
  EXPECT_EQ(core::read_record(ws, 0)["optimization"]["action_description"], "first try");
  core::create_record(ws);  // v1 pending: the plan is for it
  r = new_plan(ws, std::nullopt, false);
  EXPECT_EQ(r.version, 1);
  EXPECT_EQ(r.path, ws / "plans" / "v1_plan.md");
  std::string text = test::read(r.path);
  EXPECT_EQ(text.rfind("# Iteration V1 Plan", 0), 0u);
  EXPECT_EQ(text.find("{{"), std::string::npos);
  for (const auto& s : plan_sections()) EXPECT_NE(text.find("## " + s + "\n"), std::string::npos) << s;
  try {
    new_plan(ws, 1, false);
    FAIL() << "overwrote a plan";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
  }
  test::write(r.path, "mine");
  new_plan(ws, 1, true);
  EXPECT_NE(test::read(r.path), "mine");
  EXPECT_FALSE(check_plan(ws, 1).ok());
  test::write_plan(ws, 1, "tiling");
  EXPECT_TRUE(check_plan(ws, std::nullopt).ok());
  try {
    check_plan(ws, 7);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::plan_invalid);
  }
}

}  // namespace kgo::iterate
