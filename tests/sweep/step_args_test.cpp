#include "sweep/step_args.hpp"

#include <gtest/gtest.h>

#include "tests/sweep/sweep_fixture.hpp"

namespace kgo::sweep {

using kgo::test::code_of;

TEST(StepArgsTest, OptionsThatOnlyChangeHowAStepMeasuresPass) {
  EXPECT_EQ(code_of([] { screen_step_args("bench", {"--runs", "20", "--precision=0.5", "--no-compile"}); }), ExitCode::ok);
  EXPECT_EQ(code_of([] { screen_step_args("check", {"--trials", "5", "--seed", "7"}); }), ExitCode::ok);
  EXPECT_EQ(code_of([] { screen_step_args("status", {}); }), ExitCode::ok);
}

TEST(StepArgsTest, VerdictLooseningAxisAndProgramOptionsAreRefusedWithTheReason) {
  struct Case {
    const char* step;
    std::vector<std::string> args;
    const char* reason;
  };
  for (const Case& c : {Case{"check", {"--atol", "1"}, "loosens the verdict"},
                        Case{"check", {"--rtol=0.5"}, "loosens the verdict"},
                        Case{"check", {"--no-edge-shapes"}, "odd-sized shapes"},
                        Case{"bench", {"--no-flush-l2"}, "warm L2"},
                        Case{"bench", {"--size", "8x8"}, "sweep axis"},
                        Case{"check", {"--dtype", "fp16"}, "sweep axis"},
                        Case{"check", {"--workspace", "w"}, "own workspace copy"},
                        Case{"check", {"--python", "/bin/sh"}, "names a program"},
                        Case{"profile", {"--ncu=./evil"}, "names a program"}}) {
    std::string msg;
    EXPECT_EQ(code_of([&] { screen_step_args(c.step, c.args); }, &msg), ExitCode::usage) << c.args[0];
    EXPECT_NE(msg.find(c.reason), std::string::npos) << c.args[0] << ": " << msg;
    EXPECT_NE(msg.find(c.args[0].substr(0, c.args[0].find('='))), std::string::npos) << msg;
  }
}

TEST(StepArgsTest, AnOptionTheStepLacksOrAnUnknownStepIsRefused) {
  std::string msg;
  EXPECT_EQ(code_of([&] { screen_step_args("check", {"--runs", "3"}); }, &msg), ExitCode::usage);  // bench's, not check's
  EXPECT_NE(msg.find("--runs"), std::string::npos) << msg;
  EXPECT_EQ(code_of([&] { screen_step_args("deploy", {}); }, &msg), ExitCode::usage);
  EXPECT_NE(msg.find("unknown step 'deploy'"), std::string::npos) << msg;
}

TEST(StepArgsTest, ASpecWithARefusedOptionIsRefusedBeforeAnyJobExists) {
  kgo::test::TempDir t;
  std::string spec = test::k_spec;
  spec.replace(spec.find("\"--runs\", \"20\""), 14, "\"--atol\", \"1\"");
  auto path = test::write_spec(t, spec);
  std::string msg;
  EXPECT_EQ(code_of([&] { expand_spec(path, t / "out"); }, &msg), ExitCode::usage) << msg;
  EXPECT_FALSE(std::filesystem::exists(t / "out"));
}

}  // namespace kgo::sweep
