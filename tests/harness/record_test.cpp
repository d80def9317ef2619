#include "harness/record.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/memory.hpp"
#include "tests/test_util.hpp"

namespace kgo::harness {

TEST(RecordTest, CreatesV0WhenThereIsNoRecord) {
  test::TempDir ws;
  RecordChoice c = current_record(ws.path());
  EXPECT_EQ(c.version, 0);
  EXPECT_TRUE(c.created);
  EXPECT_TRUE(std::filesystem::exists(ws / "memory/v0.json"));
  RecordChoice again = current_record(ws.path());
  EXPECT_EQ(again.version, 0);
  EXPECT_FALSE(again.created);
}

TEST(RecordTest, DecidedOrMaskedRecordsAreNotRewritten) {
  test::TempDir ws;
  core::create_record(ws.path(), 0);
  auto rec = core::read_record(ws.path(), 0);
  rec["quality_gate"]["result"] = "PASS";
  core::write_record(ws.path(), 0, rec);
  RecordChoice c = current_record(ws.path());
  EXPECT_FALSE(c.version);
  EXPECT_NE(c.why_not.find("kgo memory create"), std::string::npos);

  core::create_record(ws.path(), 1);
  auto r1 = core::read_record(ws.path(), 1);
  r1["masked"] = true;
  core::write_record(ws.path(), 1, r1);
  c = current_record(ws.path());
  EXPECT_FALSE(c.version);
  EXPECT_NE(c.why_not.find("masked"), std::string::npos);
}

TEST(RecordTest, HarnessHashMustMatch) {
  test::TempDir dir;
  test::write(dir / "kernel.py", "x = 1\n");
  std::string sha = core::sha256_file(dir / "kernel.py");
  nlohmann::json pass = {{"verdict", "PASS"}, {"kernel_sha256", sha}};
  EXPECT_NO_THROW(verify_harness_hash(dir / "kernel.py", sha, pass));
  pass["kernel_sha256"] = std::string(64, 'a');
  try {
    verify_harness_hash(dir / "kernel.py", sha, pass);
    FAIL() << "other content accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::record_error);
  }
  // A crashed worker may report no hash; only a non-PASS may lack one.
  EXPECT_NO_THROW(verify_harness_hash(dir / "kernel.py", sha, {{"verdict", "CRASH"}, {"kernel_sha256", nullptr}}));
  EXPECT_THROW(verify_harness_hash(dir / "kernel.py", sha, {{"verdict", "PASS"}, {"kernel_sha256", nullptr}}), Error);
}

TEST(RecordTest, EditedKernelIsRefused) {
  test::TempDir dir;
  test::write(dir / "kernel.py", "x = 1\n");
  std::string sha = core::sha256_file(dir / "kernel.py");
  EXPECT_NO_THROW(verify_kernel_unchanged(dir / "kernel.py", sha));
  test::write(dir / "kernel.py", "x = 2\n");
  EXPECT_THROW(verify_kernel_unchanged(dir / "kernel.py", sha), Error);
}

TEST(RecordTest, EnvironmentFromAHarnessResult) {
  test::TempDir ws;
  core::create_record(ws.path(), 0);
  nlohmann::json result = {
      {"environment", {{"gpu", "NVIDIA H200"}, {"driver", "580.1"}, {"cuda", "13.0"}, {"torch", "2.11"},
                       {"triton", "3.6"}, {"python", "3.12"}}},
      {"clocks", {{"before", {{"sm_mhz", 1980}, {"mem_mhz", 3201}, {"sm_max_mhz", 1980},
                              {"throttle_names", {"sw_power_cap"}}}}}}};
  write_environment(ws.path(), 0, result);
  auto env = core::read_record(ws.path(), 0)["environment"];
  EXPECT_EQ(env["gpu"], "NVIDIA H200");
  EXPECT_EQ(env["clocks"]["max_sm_mhz"], 1980);
  EXPECT_EQ(env["clocks"]["clock_events"][0], "sw_power_cap");
  write_environment(ws.path(), 0, {{"environment", {{"gpu", nullptr}, {"torch", "2.11"}}}});
  env = core::read_record(ws.path(), 0)["environment"];
  EXPECT_TRUE(env["gpu"].is_null());
  EXPECT_TRUE(env["clocks"].is_null());
}

}  // namespace kgo::harness
