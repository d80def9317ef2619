#include "core/process.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "tests/test_util.hpp"

namespace kgo::core {

TEST(ProcessTest, CapturesOutputAndExitCode) {
  auto r = run_process({"sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.ok());
}

TEST(ProcessTest, NoShellInterpretation) {
  auto r = run_process({"echo", "$HOME; rm -rf /"});
  EXPECT_EQ(r.out, "$HOME; rm -rf /\n");
}

TEST(ProcessTest, FeedsStdin) {
  ProcessOptions o;
  o.stdin_data = std::string(200000, 'x');
  auto r = run_process({"wc", "-c"}, o);
  EXPECT_EQ(std::stol(r.out), 200000);
}

TEST(ProcessTest, TimeoutKillsWholeProcessGroup) {
  test::TempDir dir;
  ProcessOptions o;
  o.timeout = std::chrono::milliseconds(300);
  // The grandchild would touch a file after 2 s unless the whole group is killed.
  std::string marker = (dir / "survived").string();
  auto r = run_process({"sh", "-c", "(sleep 2; touch " + marker + ") & sleep 30"}, o);
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.seconds, 5.0);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_FALSE(std::filesystem::exists(marker));
}

TEST(ProcessTest, SignalIsReported) {
  auto r = run_process({"sh", "-c", "kill -SEGV $$"});
  EXPECT_TRUE(r.signaled);
  EXPECT_EQ(r.signal, 11);
}

TEST(ProcessTest, MissingProgramThrows) {
  EXPECT_THROW(run_process({"kgo-no-such-program-xyz"}), Error);
}

TEST(ProcessTest, EnvAndCwd) {
  test::TempDir dir;
  ProcessOptions o;
  o.cwd = dir.path();
  o.env["KGO_TEST_VAR"] = "hello";
  auto r = run_process({"sh", "-c", "pwd; echo $KGO_TEST_VAR"}, o);
  EXPECT_EQ(r.out, std::filesystem::canonical(dir.path()).string() + "\nhello\n");
}

}  // namespace kgo::core
