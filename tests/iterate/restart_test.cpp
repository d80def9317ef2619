#include "iterate/restart.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/error.hpp"
#include "core/git.hpp"
#include "core/memory.hpp"
#include "iterate/lifecycle.hpp"
#include "tests/iterate/workspace_fixture.hpp"

namespace kgo::iterate {

namespace {

// v0 accepted (100 us), v1 rejected, v2 accepted (best, 60 us), v3 accepted (70 us), v4..v6 pending/rejected.
fs::path history(const test::TempDir& dir) {
  fs::path ws = test::make_workspace(dir, "r");
  double latency[] = {100, 0, 60, 70};
  for (int n = 0; n <= 6; ++n) {
    core::create_record(ws);
    test::write(ws / "kernel.py", "def kernel():\n    return " + std::to_string(n) + "\n");
    if (n > 0) test::write_plan(ws, n, "tiling");
    test::stamp(ws, n, "PASS", n < 4 && latency[n] > 0 ? latency[n] : 90.0 + n);
    if (n < 4 && latency[n] > 0) accept_iteration(ws, n);
    else if (n < 6) reject_iteration(ws, n, {"slower", "", "", std::nullopt});
  }
  return ws;
}

}  // namespace

TEST(ChooseMaskedTest, SeededHalfSortedAndStable) {
  std::vector<int> c = {1, 3, 4, 5, 6};
  auto a = choose_masked(c, 42);
  EXPECT_EQ(a, choose_masked(c, 42));
  EXPECT_EQ(a, choose_masked({6, 5, 4, 3, 1}, 42));  // the order given does not matter
  EXPECT_EQ(a.size(), 3u);
  EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
  for (int v : a) EXPECT_NE(std::find(c.begin(), c.end(), v), c.end());
  std::set<std::vector<int>> seen;
  for (std::uint64_t seed = 0; seed < 64; ++seed) seen.insert(choose_masked(c, seed));
  EXPECT_GT(seen.size(), 5u);  // the seed matters
  EXPECT_EQ(choose_masked({7}, 1), std::vector<int>{7});
  EXPECT_EQ(choose_masked({1, 2}, 9).size(), 1u);
}

TEST(RestartTest, MasksAboutHalfNeverV0OrTheBestAndRecordsTheSeed) {
  test::TempDir dir;
  fs::path ws = history(dir);
  RestartResult r = partial_restart(ws, 1234, "");
  ASSERT_TRUE(r.best);
  EXPECT_EQ(*r.best, 2);
  EXPECT_EQ(r.masked.size(), 3u);  // candidates v1 v3 v4 v5 v6
  for (int v : r.masked) {
    EXPECT_NE(v, 0);
    EXPECT_NE(v, 2);
    EXPECT_TRUE(core::read_record(ws, v, true)["masked"].get<bool>());
  }
  EXPECT_EQ(r.next_version, 7);
  EXPECT_EQ(r.noted_in, r.kept.back());
  auto pit = core::read_record(ws, r.noted_in)["pitfalls_and_fixes"].back();
  EXPECT_EQ(pit["error_type"], "restart");
  EXPECT_EQ(pit["details"]["seed"], 1234);
  EXPECT_EQ(pit["details"]["masked"].size(), r.masked.size());
  EXPECT_EQ(pit["details"]["next_version"], "v7");
  EXPECT_EQ(core::GitRepo::open(ws).log()[0].summary.rfind("restart: masked v", 0), 0u);
  EXPECT_EQ(core::create_record(ws), 7);  // numbering continues after the highest, masked or not
  EXPECT_TRUE(verify_workspace(ws).problems.empty());
}

TEST(RestartTest, ReproducibleFromTheSeed) {
  test::TempDir d1, d2;
  fs::path a = history(d1), b = history(d2);
  EXPECT_EQ(partial_restart(a, 77, "").masked, partial_restart(b, 77, "").masked);
}

TEST(RestartTest, RefusesWhenNothingCanBeMasked) {
  test::TempDir dir;
  fs::path ws = test::make_workspace(dir);
  core::create_record(ws);
  test::stamp(ws, 0);
  accept_iteration(ws, 0);
  try {
    partial_restart(ws, 1, "");
    FAIL() << "restart masked something";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::record_error);
  }
}

}  // namespace kgo::iterate
