#include "harness/env.hpp"

#include <gtest/gtest.h>

#include "core/tools.hpp"
#include "tests/tool_env.hpp"

namespace kgo::harness {
namespace {

// kgo env reports the file that kgo profile and kgo asm run (both use core::find_tool): a tool
// only under $CUDA_HOME/bin, not in PATH, is found by both, with its version line.
TEST(EnvTool, EnvFindsWhatProfileRuns) {
  test::TempDir home, bin;
  auto ncu = test::fake_tool(home / "bin", "kgo-fake-ncu", "NVIDIA (R) Nsight Compute Version 2099.1");
  test::ScopedEnv path("PATH", bin.path().string() + ":/usr/bin:/bin");
  test::ScopedEnv cuda("CUDA_HOME", home.path().string());
  ToolInfo info = find_cuda_tool("kgo-fake-ncu");
  ASSERT_TRUE(core::find_tool("kgo-fake-ncu"));
  EXPECT_EQ(info.path, core::find_tool("kgo-fake-ncu")->string());
  EXPECT_EQ(info.path, ncu.string());
  EXPECT_EQ(info.version, "NVIDIA (R) Nsight Compute Version 2099.1");
}

TEST(EnvTool, MissingEverywhere) {
  test::TempDir bin;
  test::ScopedEnv path("PATH", bin.path().string());
  test::ScopedEnv cuda("CUDA_HOME", bin.path().string());
  EXPECT_EQ(find_cuda_tool("kgo-no-such-tool").path, "");
  EXPECT_FALSE(core::find_tool("kgo-no-such-tool"));
}

}  // namespace
}  // namespace kgo::harness
