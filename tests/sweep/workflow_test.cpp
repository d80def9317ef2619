#include "sweep/workflow.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "tests/sweep/sweep_fixture.hpp"

namespace kgo::sweep {

using kgo::test::code_of;
using kgo::test::TempDir;

TEST(WorkflowTest, UnknownBackendIsAUsageErrorNamingEveryBackendAndWritesNothing) {
  TempDir t;
  RunOptions o;
  o.backend = "pbs";
  std::string message;
  EXPECT_EQ(code_of([&] { run_sweep(test::write_spec(t), t / "out", o); }, &message), ExitCode::usage);
  EXPECT_NE(message.find("'pbs'"), std::string::npos) << message;
  EXPECT_NE(message.find("local, slurm"), std::string::npos) << message;
  EXPECT_FALSE(std::filesystem::exists(t / "out"));
}

TEST(WorkflowTest, BackendsAreTheOnesTheRunSchemaNames) {
  std::ifstream in(std::string(KGO_SOURCE_DIR) + "/schemas/cli/sweep-run.schema.json");
  nlohmann::json schema = nlohmann::json::parse(in);
  std::set<std::string> in_schema, here;
  for (const auto& n : schema["properties"]["backend"]["enum"]) in_schema.insert(n.get<std::string>());
  for (const Backend& b : backends()) {
    here.insert(b.name);
    EXPECT_EQ(&find_backend(b.name), &b);
  }
  EXPECT_EQ(here, in_schema);
}

TEST(WorkflowTest, FailuresCountMissingResultsOnlyWhenTheBackendWaited) {
  nlohmann::json c = {{"ok", 3}, {"missing", 1}};
  EXPECT_FALSE(has_failures(c, false));
  EXPECT_TRUE(has_failures(c, true));
  EXPECT_TRUE(has_failures({{"timeout", 1}}, false));
  RunOptions o;
  EXPECT_TRUE(find_backend("local").waited(o));
  EXPECT_FALSE(find_backend("slurm").waited(o));
  o.wait = true;
  EXPECT_TRUE(find_backend("slurm").waited(o));
}

TEST(WorkflowTest, CancelWithNoRunnerAndNoSubmissionCancelsNothing) {
  TempDir t;
  Sweep s = expand_spec(test::write_spec(t), t / "out");
  save_or_match_plan(s);
  CancelResult r = cancel_sweep(s.dir, {});
  EXPECT_FALSE(r.had_slurm);
  EXPECT_TRUE(r.slurm_cancelled.empty());
  EXPECT_FALSE(r.local_runner_stopped);
}

TEST(WorkflowTest, ExecWithoutAJobOrATaskIsAUsageError) {
  TempDir t;
  Sweep s = expand_spec(test::write_spec(t), t / "out");
  save_or_match_plan(s);
  EXPECT_EQ(code_of([&] { exec_job(s.dir, std::nullopt, 1, std::nullopt); }), ExitCode::usage);
  EXPECT_EQ(code_of([&] { exec_job(s.dir, 99, std::nullopt, std::nullopt); }), ExitCode::usage);
}

}  // namespace kgo::sweep
