// `kgo init --platform` names resolve through the wiki: its products, aliases and arch.
#include "gpu-wiki-index/platform.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "core/error.hpp"
#include "tests/test_util.hpp"

namespace kgo::wiki {
namespace {

class PlatformTest : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv("XDG_CACHE_HOME", (cache / "xdg").c_str(), 1); }
  void TearDown() override { ::unsetenv("XDG_CACHE_HOME"); }
  test::TempDir cache;
};

TEST_F(PlatformTest, FixtureProductsAndArch) {
  WikiLocation loc{KGO_FIXTURE_WIKI, false, "--wiki"};
  auto p = resolve_platform("H20", loc);
  EXPECT_EQ(p.canonical, "H20");
  EXPECT_EQ(p.arch, "Hopper");
  EXPECT_EQ(resolve_platform("mi300x", loc).arch, "CDNA3");
  // The fixture has one H100 product, so the bare name is a whole-word prefix of exactly one.
  EXPECT_EQ(resolve_platform("H100", loc).canonical, "H100 SXM");
  auto known = known_platforms(loc);
  EXPECT_EQ(known, (std::vector<std::string>{"H100 SXM", "H20", "H200", "MI300X", "MI308X"}));
}

TEST_F(PlatformTest, EmbeddedWikiDeclaresH100AsTheSxm) {
  WikiLocation loc{std::filesystem::path(KGO_SOURCE_DIR) / "gpu-wiki-index" / "wiki", true, "embedded"};
  if (!std::filesystem::exists(loc.root / "README.md")) GTEST_SKIP() << "embedded wiki not present";
  auto p = resolve_platform("H100", loc);
  EXPECT_EQ(p.canonical, "H100 SXM");
  EXPECT_EQ(p.arch, "Hopper");
  EXPECT_EQ(resolve_platform("H200", loc).canonical, "H200");
  EXPECT_EQ(resolve_platform("H20", loc).canonical, "H20");
  EXPECT_EQ(resolve_platform("MI355X", loc).arch, "CDNA4");
  for (const char* p : {"H100 SXM", "H100 PCIe", "H200", "H20", "B200", "L40S", "MI300X", "MI308X", "MI325X", "MI355X"}) {
    auto known = known_platforms(loc);
    EXPECT_NE(std::find(known.begin(), known.end(), p), known.end()) << p;
  }
}

TEST_F(PlatformTest, AmbiguousAndUnknown) {
  test::TempDir dir;
  test::write(dir / "a.md", "## NVIDIA H100 SXM (sm_90, Hopper)\n- SM count: 132\n## NVIDIA H100 PCIe (sm_90, Hopper)\n- SM count: 114\n");
  WikiLocation loc{dir.path(), false, "--wiki"};
  try {
    resolve_platform("H100", loc);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::unknown_platform);
    EXPECT_NE(std::string(e.what()).find("H100 PCIe and H100 SXM"), std::string::npos) << e.what();
  }
  try {
    resolve_platform("A100", loc);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::unknown_platform);
    EXPECT_NE(std::string(e.what()).find("H100 PCIe, H100 SXM"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kgo::wiki
