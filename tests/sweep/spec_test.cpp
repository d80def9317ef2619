#include "sweep/spec.hpp"

#include <gtest/gtest.h>

#include <set>

#include "sweep/job.hpp"
#include "tests/sweep/sweep_fixture.hpp"

namespace kgo::sweep {

using kgo::test::code_of;
using kgo::test::TempDir;

TEST(SpecTest, ExpandsKernelsTimesPlatformsShapesDtypesAndSteps) {
  TempDir t;
  Sweep s = expand_spec(test::write_spec(t), t / "out");
  EXPECT_EQ(s.name, "demo");
  EXPECT_DOUBLE_EQ(s.timeout_s, 60);
  EXPECT_EQ(s.retries, 2);
  ASSERT_EQ(s.jobs.size(), 8u);  // 1 kernel x 2 platforms x 2 shapes x 1 dtype x 2 steps
  std::set<std::string> labels;
  for (size_t i = 0; i < s.jobs.size(); ++i) {
    const Job& j = s.jobs[i];
    EXPECT_EQ(j.id, static_cast<int>(i));
    EXPECT_EQ(j.kernel->filename(), "kernel.py");
    EXPECT_TRUE(j.kernel->is_absolute());  // resolved against the spec's folder
    EXPECT_EQ(j.reference->filename(), "ref.py");
    EXPECT_EQ(j.device, "cpu");
    EXPECT_FALSE(j.wants_gpu());
    std::vector<std::string> args;
    if (j.step == "bench") args = {"--runs", "20"};
    EXPECT_EQ(j.args, args);
    labels.insert(j.label());
  }
  EXPECT_EQ(labels.size(), 8u);
  EXPECT_TRUE(labels.count("softmax/H200/4096x4096/fp32/bench"));
  EXPECT_EQ(s.dir, (t / "out").lexically_normal());
}

TEST(SpecTest, StepArgvPassesTheJobsAxesToItsStep) {
  TempDir t;
  Sweep s = expand_spec(test::write_spec(t), t / "out");
  const Job& bench = s.jobs[1];
  ASSERT_EQ(bench.step, "bench");
  std::vector<std::string> argv = step_argv(bench, "/ws");
  std::vector<std::string> tail(argv.begin() + 1, argv.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"bench", "--workspace", "/ws", "--json", "--size", "1024x1024", "--dtype",
                                            "fp32", "--device", "cpu", "--runs", "20"}));
}

TEST(SpecTest, BadSpecsAreRefusedWithTheirFix) {
  TempDir t;
  std::string msg;
  EXPECT_EQ(code_of([&] { expand_spec(t / "absent.json", t / "out"); }, &msg), ExitCode::usage);
  kgo::test::write(t / "broken.json", "{\"name\": ");
  EXPECT_EQ(code_of([&] { expand_spec(t / "broken.json", t / "out"); }, &msg), ExitCode::usage);
  EXPECT_NE(msg.find("not valid JSON"), std::string::npos) << msg;
  auto spec = test::write_spec(t, R"({"name": "x", "steps": ["launch"]})");
  EXPECT_EQ(code_of([&] { expand_spec(spec, t / "out"); }, &msg), ExitCode::schema_invalid) << msg;
  spec = test::write_spec(t, R"({"name": "x", "steps": ["check"]})");
  EXPECT_EQ(code_of([&] { expand_spec(spec, t / "out"); }, &msg), ExitCode::usage);
  EXPECT_NE(msg.find("at least one of \"workspaces\" or \"kernels\""), std::string::npos) << msg;
  spec = test::write_spec(t, R"({"name": "x", "steps": ["check"], "kernels": [{"name": "a", "kernel": "k/kernel.py"}]})");
  EXPECT_EQ(code_of([&] { expand_spec(spec, t / "out"); }, &msg), ExitCode::usage);
  EXPECT_NE(msg.find("needs \"platforms\""), std::string::npos) << msg;
  spec = test::write_spec(t, R"({"name": "x", "steps": ["check"], "platforms": ["H100"],
    "kernels": [{"name": "a", "kernel": "k/missing.py"}]})");
  EXPECT_EQ(code_of([&] { expand_spec(spec, t / "out"); }, &msg), ExitCode::usage);
  EXPECT_NE(msg.find("kernel 'k/missing.py' not found"), std::string::npos) << msg;
  spec = test::write_spec(t, R"({"name": "x", "steps": ["check"], "workspaces": ["k"]})");
  EXPECT_EQ(code_of([&] { expand_spec(spec, t / "out"); }, &msg), ExitCode::usage);
  EXPECT_NE(msg.find("is not a kgo workspace"), std::string::npos) << msg;
}

TEST(SpecTest, APlanResumesOnlyTheJobsWithoutAResult) {
  TempDir t;
  Sweep s = expand_spec(test::write_spec(t), t / "out");
  save_or_match_plan(s);
  ASSERT_TRUE(std::filesystem::exists(t / "out" / "sweep.json"));
  kgo::test::write(s.result_file(0), "{}");
  kgo::test::write(s.result_file(5), "{}");
  Sweep loaded = load_plan(t / "out");
  EXPECT_EQ(loaded.spec_sha256, s.spec_sha256);
  ASSERT_EQ(loaded.jobs.size(), s.jobs.size());
  EXPECT_EQ(loaded.jobs[3].label(), s.jobs[3].label());
  EXPECT_EQ(loaded.jobs[1].args, s.jobs[1].args);
  EXPECT_EQ(jobs_without_result(loaded), (std::vector<int>{1, 2, 3, 4, 6, 7}));
  save_or_match_plan(s);  // the same spec again: resumes, keeps the results
  EXPECT_TRUE(std::filesystem::exists(s.result_file(5)));
}

TEST(SpecTest, AFolderNeverMixesTwoSweeps) {
  TempDir t;
  Sweep s = expand_spec(test::write_spec(t), t / "out");
  save_or_match_plan(s);
  std::string other = test::k_spec;
  other.replace(other.find("\"fp32\""), 6, "\"fp16\"");
  Sweep s2 = expand_spec(test::write_spec(t, other), t / "out");
  std::string msg;
  EXPECT_EQ(code_of([&] { save_or_match_plan(s2); }, &msg), ExitCode::usage);
  EXPECT_NE(msg.find("holds another sweep"), std::string::npos) << msg;
  EXPECT_EQ(code_of([&] { load_plan(t / "nothing"); }), ExitCode::usage);
}

}  // namespace kgo::sweep
