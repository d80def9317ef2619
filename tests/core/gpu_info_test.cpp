#include "core/gpu_info.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>

#include "tests/test_util.hpp"

namespace kgo::core {

TEST(GpuInfoTest, ParsesAQueryLine) {
  auto g = parse_smi_line("1, NVIDIA H200, 9.0, 580.159.04, 1755, 3201, 1980, 3201, 45, 310.25, 0x0000000000000005");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->index, 1);
  EXPECT_EQ(g->name, "NVIDIA H200");
  EXPECT_EQ(g->compute_cap, "9.0");
  EXPECT_EQ(g->driver_version, "580.159.04");
  EXPECT_DOUBLE_EQ(*g->sm_clock_mhz, 1755);
  EXPECT_DOUBLE_EQ(*g->max_sm_clock_mhz, 1980);
  EXPECT_DOUBLE_EQ(*g->power_w, 310.25);
  EXPECT_EQ(g->clock_events, (std::vector<std::string>{"gpu_idle", "sw_power_cap"}));
  EXPECT_NE(clocks_text(*g).find("1755 MHz SM"), std::string::npos);
  EXPECT_NE(clocks_text(*g).find("sw_power_cap"), std::string::npos);
}

TEST(GpuInfoTest, UnsupportedFieldsBecomeAbsent) {
  auto g = parse_smi_line("0, Tesla X, 7.0, 470.1, [N/A], [N/A], 1530, 877, 30, [N/A], [Not Supported]");
  ASSERT_TRUE(g);
  EXPECT_FALSE(g->sm_clock_mhz);
  EXPECT_FALSE(g->power_w);
  EXPECT_TRUE(g->clock_events.empty());
  EXPECT_NE(clocks_text(*g).find("? MHz SM"), std::string::npos);
}

TEST(GpuInfoTest, TheUuidColumnIsReadWhereTheQueryAskedForIt) {
  auto g = parse_smi_line("2, NVIDIA H200, 9.0, 580.159.04, 1980, 3201, 1980, 3201, 40, 120.5, 0x0, "
                          "GPU-4517ac55-1879-a686-0fb0-ed1910f3aab9");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->uuid, "GPU-4517ac55-1879-a686-0fb0-ed1910f3aab9");
  EXPECT_TRUE(g->clock_events.empty());
  auto without = parse_smi_line("0, Tesla X, 7.0, 470.1, [N/A], [N/A], 1530, 877, 30, [N/A], [Not Supported]");
  ASSERT_TRUE(without);
  EXPECT_TRUE(without->uuid.empty());
  auto na = parse_smi_line("0, Tesla X, 7.0, 470.1, [N/A], [N/A], 1530, 877, 30, [N/A], [Not Supported], [N/A]");
  ASSERT_TRUE(na);
  EXPECT_TRUE(na->uuid.empty());
}

TEST(GpuInfoTest, RejectsShortOrGarbageLines) {
  EXPECT_FALSE(parse_smi_line(""));
  EXPECT_FALSE(parse_smi_line("No devices were found"));
  EXPECT_FALSE(parse_smi_line("x, a, b, c, d, e, f, g, h, i, j"));
}

TEST(GpuInfoTest, VisibilityFromTheDriversEntries) {
  test::TempDir proc;
  const char* old = std::getenv("CUDA_VISIBLE_DEVICES");
  std::optional<std::string> saved = old ? std::optional<std::string>(old) : std::nullopt;
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_FALSE(nvidia_gpu_visible(proc.path()));            // the driver lists no GPU
  test::write(proc / "0000:18:00.0" / "information", "Model: NVIDIA H200\n");
  EXPECT_TRUE(nvidia_gpu_visible(proc.path()));
  ::setenv("CUDA_VISIBLE_DEVICES", "", 1);
  EXPECT_FALSE(nvidia_gpu_visible(proc.path()));            // all hidden
  ::setenv("CUDA_VISIBLE_DEVICES", "-1", 1);
  EXPECT_FALSE(nvidia_gpu_visible(proc.path()));
  ::setenv("CUDA_VISIBLE_DEVICES", "0", 1);
  EXPECT_TRUE(nvidia_gpu_visible(proc.path()));
  if (saved) ::setenv("CUDA_VISIBLE_DEVICES", saved->c_str(), 1);
  else ::unsetenv("CUDA_VISIBLE_DEVICES");
}

}  // namespace kgo::core
