#include "core/tools.hpp"

#include <gtest/gtest.h>

#include "tests/tool_env.hpp"

namespace kgo::core {
namespace {

using test::ScopedEnv;
using test::fake_tool;

TEST(Tools, FoundInCudaHomeWhenNotInPath) {
  test::TempDir home, bin;
  auto ncu = fake_tool(home / "bin", "kgo-fake-ncu");
  ScopedEnv path("PATH", bin.path().string());
  ScopedEnv cuda("CUDA_HOME", home.path().string());
  ASSERT_TRUE(find_tool("kgo-fake-ncu"));
  EXPECT_EQ(*find_tool("kgo-fake-ncu"), ncu);
}

TEST(Tools, PathComesFirst) {
  test::TempDir home, bin;
  fake_tool(home / "bin", "kgo-fake-nvcc");
  auto in_path = fake_tool(bin.path(), "kgo-fake-nvcc");
  ScopedEnv path("PATH", bin.path().string());
  ScopedEnv cuda("CUDA_HOME", home.path().string());
  EXPECT_EQ(*find_tool("kgo-fake-nvcc"), in_path);
}

TEST(Tools, ExtraDirsAndNotExecutable) {
  test::TempDir extra, bin;
  ScopedEnv path("PATH", bin.path().string());
  test::write(extra / "kgo-fake-cuobjdump", "not executable");
  EXPECT_FALSE(find_tool("kgo-fake-cuobjdump", {extra.path()}));
  ::chmod((extra / "kgo-fake-cuobjdump").c_str(), 0755);
  EXPECT_EQ(*find_tool("kgo-fake-cuobjdump", {extra.path()}), extra / "kgo-fake-cuobjdump");
  EXPECT_FALSE(find_tool("kgo-no-such-tool", {extra.path()}));
}

}  // namespace
}  // namespace kgo::core
