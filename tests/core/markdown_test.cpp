#include "core/markdown.hpp"

#include <gtest/gtest.h>

namespace kgo::core {

TEST(MarkdownTest, RenderUnknownIsTbd) {
  EXPECT_EQ(render_template("a {{x}} b {{y}}", {{"x", "1"}}), "a 1 b TBD");
  EXPECT_EQ(render_template("{{x}}", {{"x", ""}}), "TBD");
}

TEST(MarkdownTest, ReplaceKeepsOtherSections) {
  std::string md = "# T\n\n## A\n\nold a\n\n## B\n\nuser text\n### sub\nmore\n\n## C\nc\n";
  std::string out = replace_section(md, "B", "new b");
  EXPECT_EQ(out, "# T\n\n## A\n\nold a\n\n## B\n\nnew b\n\n## C\nc\n");
  EXPECT_EQ(*section_body(out, "A"), "\nold a\n\n");
}

TEST(MarkdownTest, ReplaceIsIdempotent) {
  std::string md = "## A\nx\n## B\ny\n";
  std::string once = replace_section(md, "A", "z");
  EXPECT_EQ(replace_section(once, "A", "z"), once);
}

TEST(MarkdownTest, MissingSectionIsAppended) {
  EXPECT_EQ(replace_section("# T\n", "New", "body"), "# T\n\n## New\n\nbody\n");
  EXPECT_FALSE(section_body("# T\n", "New").has_value());
}

TEST(MarkdownTest, HeadingsInsideFencesAreIgnored) {
  std::string md = "## A\n```\n## B\n```\nend\n## B\nreal\n";
  EXPECT_EQ(*section_body(md, "B"), "real\n");
}

}  // namespace kgo::core
