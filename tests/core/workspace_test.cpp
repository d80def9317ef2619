#include "core/workspace.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "tests/test_util.hpp"

namespace kgo::core {

TEST(WorkspaceTest, ParseShape) {
  EXPECT_EQ(parse_shape("4096x4096"), (std::vector<long long>{4096, 4096}));
  EXPECT_EQ(parse_shape("17"), (std::vector<long long>{17}));
  EXPECT_EQ(shape_to_string({2, 3, 4}), "2x3x4");
  for (const char* bad : {"", "x", "4096x", "0x4", "-1", "4096*4096", "1e3"}) {
    EXPECT_THROW(parse_shape(bad), Error) << bad;
  }
}

TEST(WorkspaceTest, ConfigRoundTrip) {
  test::TempDir dir;
  WorkspaceConfig c;
  c.name = "softmax";
  c.platform = "H100 SXM";
  c.arch = "Hopper";
  c.shapes = {{256, 256}};
  c.kernel_file = "kernel.py";
  c.reference = "ref.py";
  c.wiki_path = "/w";
  c.wiki_fingerprint = "sha256:00";
  c.kgo_version = "0.1.0";
  c.created_at = utc_now_iso();
  save_config(dir.path(), c);
  WorkspaceConfig back = load_config(dir.path());
  EXPECT_EQ(nlohmann::json(back), nlohmann::json(c));
}

TEST(WorkspaceTest, FindWorkspaceSearchesUpward) {
  test::TempDir dir;
  test::write(dir / "kgo.json", "{}");
  std::filesystem::create_directories(dir / "a/b");
  EXPECT_EQ(find_workspace(std::nullopt, dir / "a/b"), dir.path());
  try {
    find_workspace(dir / "a");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::no_workspace);
  }
}

TEST(WorkspaceTest, MalformedConfigIsReported) {
  test::TempDir dir;
  test::write(dir / "kgo.json", "{not json");
  EXPECT_THROW(load_config(dir.path()), Error);
}

}  // namespace kgo::core
