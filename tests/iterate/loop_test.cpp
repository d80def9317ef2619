// The full iteration loop on a real workspace: init, create v0, stamp, accept, create v1, reject,
// create v2, accept, mask v1, summary; every step visible in git log.
#include <gtest/gtest.h>

#include "core/git.hpp"
#include "core/memory.hpp"
#include "iterate/lifecycle.hpp"
#include "iterate/memory_view.hpp"
#include "iterate/plan.hpp"
#include "tests/iterate/workspace_fixture.hpp"

namespace kgo::iterate {

namespace {

std::vector<std::string> subjects(const fs::path& ws) {
  std::vector<std::string> out;
  for (const auto& c : core::GitRepo::open(ws).log()) out.push_back(c.summary);
  return out;
}

}  // namespace

TEST(LoopTest, InitAcceptRejectAcceptMaskSummary) {
  test::TempDir dir;
  fs::path ws = test::make_workspace(dir, "loop");
  const std::string init = subjects(ws).at(0);

  EXPECT_EQ(core::create_record(ws), 0);
  core::update_record(ws, 0, {{"profile_evidence.bottleneck_type", "memory_bound"},
                              {"profile_evidence.evidence_summary", "dram throughput 41%"}});
  test::stamp(ws, 0, "PASS", 100.0, 800.0);
  AcceptResult a0 = accept_iteration(ws, 0);
  EXPECT_EQ(subjects(ws), (std::vector<std::string>{"V0: record the id of its iteration commit in memory/v0.json",
                                                    "V0: 800.0 GB/s | baseline (bottleneck: dram throughput 41%)", init}));

  EXPECT_EQ(core::create_record(ws), 1);
  test::write(ws / "kernel.py", "def kernel():\n    return 'v1'\n");
  test::write_plan(ws, 1, "swizzle");
  test::stamp(ws, 1, "PASS", 130.0, 615.0);
  RejectResult r1 = reject_iteration(ws, 1, {"30% slower than v0", "", "", std::nullopt});
  EXPECT_EQ(subjects(ws).at(0), "V1: rejected | swizzle (reason: 30% slower than v0)");
  EXPECT_EQ(r1.restored_from, a0.commit);

  EXPECT_EQ(core::create_record(ws), 2);
  test::write(ws / "kernel.py", "def kernel():\n    return 'v2'\n");
  test::write_plan(ws, 2, "vectorized_load");
  core::update_record(ws, 2, {{"optimization.action_description", "float4 loads"},
                              {"profile_evidence.evidence_summary", "dram throughput 58%"}});
  test::stamp(ws, 2, "PASS", 80.0, 1000.0);
  AcceptResult a2 = accept_iteration(ws, 2);
  EXPECT_EQ(subjects(ws).at(1), "V2: 1000.0 GB/s | float4 loads (bottleneck: dram throughput 58%)");
  EXPECT_EQ(core::read_record(ws, 2)["performance"]["comparison_with_previous"]["previous_version"], "v0");

  MaskResult m = set_masked(ws, {1}, true);
  EXPECT_EQ(subjects(ws).at(0), "memory: mask v1");

  Summary s = summarize(ws, false);
  ASSERT_EQ(s.rows.size(), 2u);
  EXPECT_EQ(s.rows[0].version, "v0");
  EXPECT_EQ(s.rows[1].version, "v2");
  EXPECT_EQ(s.masked_left_out, 1);
  EXPECT_EQ(s.best, "v2");
  EXPECT_EQ(*s.rows[1].commit, a2.commit);
  Summary all = summarize(ws, true);
  ASSERT_EQ(all.rows.size(), 3u);
  EXPECT_TRUE(all.rows[1].masked);
  EXPECT_NE(render_summary(all).find("v1 [masked]"), std::string::npos);

  EXPECT_EQ(subjects(ws).size(), 7u);  // init, 2 per accept, 1 reject, 1 mask
  EXPECT_TRUE(verify_workspace(ws).problems.empty());
  EXPECT_EQ(core::GitRepo::open(ws).changed_paths(), std::vector<std::string>{});
  EXPECT_EQ(core::read_record(ws, 2)["git_commit"], a2.commit);
}

}  // namespace kgo::iterate
