#include "harness/ops_retry.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "tests/test_util.hpp"

namespace kgo::harness {
namespace {

using nlohmann::json;
using test::code_of;

// Attempts as logs/ops_state.json records them: the kernel's hash, the verdict, the message.
json attempts(std::initializer_list<std::pair<const char*, const char*>> list) {
  json a = json::array();
  for (const auto& [sha, verdict] : list) {
    a.push_back({{"kernel_sha256", sha}, {"verdict", verdict}, {"message", std::string(verdict) + " msg"},
                 {"rel_err", 0.5}});
  }
  return a;
}

bool check(const json& a, const std::string& sha, RetryRole role = RetryRole::plain, int max = 3) {
  return should_check(a, sha, role, max, "softmax/v2_tiling", "kernels/softmax/v2_tiling.py");
}

TEST(OpsRetry, PlainRunChecksNewAndChangedVariantsOnly) {
  EXPECT_TRUE(check(json::array(), "a"));
  EXPECT_FALSE(check(attempts({{"a", "PASS"}}), "a"));
  EXPECT_FALSE(check(attempts({{"a", "FAIL"}}), "a"));  // unchanged: the recorded verdict stands
  EXPECT_TRUE(check(attempts({{"a", "FAIL"}}), "b"));
  EXPECT_TRUE(check(attempts({{"a", "PASS"}}), "b"));
}

TEST(OpsRetry, RetriesStopAtTheLimit) {
  auto three = attempts({{"a", "FAIL"}, {"b", "FAIL"}, {"c", "FAIL"}});  // two retries used
  EXPECT_TRUE(check(three, "d", RetryRole::plain, 3));
  EXPECT_FALSE(check(three, "d", RetryRole::plain, 2));
  EXPECT_FALSE(check(attempts({{"a", "FAIL"}}), "b", RetryRole::plain, 0));
}

TEST(OpsRetry, ARetryOfAnotherVariantChecksNothingHere) {
  EXPECT_FALSE(check(json::array(), "a", RetryRole::other));
  EXPECT_FALSE(check(attempts({{"a", "FAIL"}}), "b", RetryRole::other));
}

TEST(OpsRetry, TheRetriedVariantMustHaveFailedAndChanged) {
  EXPECT_TRUE(check(attempts({{"a", "FAIL"}}), "b", RetryRole::retried));
  std::string msg;
  EXPECT_EQ(code_of([&] { check(json::array(), "a", RetryRole::retried); }, &msg), ExitCode::usage);
  EXPECT_NE(msg.find("no failed attempt"), std::string::npos);
  EXPECT_EQ(code_of([&] { check(attempts({{"a", "PASS"}}), "b", RetryRole::retried); }), ExitCode::usage);
  EXPECT_EQ(code_of([&] { check(attempts({{"a", "FAIL"}}), "a", RetryRole::retried); }, &msg), ExitCode::usage);
  EXPECT_NE(msg.find("unchanged since attempt 1; regenerate kernels/softmax/v2_tiling.py"), std::string::npos);
  auto four = attempts({{"a", "FAIL"}, {"b", "FAIL"}, {"c", "FAIL"}, {"d", "FAIL"}});
  EXPECT_EQ(code_of([&] { check(four, "e", RetryRole::retried); }, &msg), ExitCode::failure);
  EXPECT_NE(msg.find("already used its 3 retries"), std::string::npos);
}

TEST(OpsRetry, StatusFromTheAttempts) {
  auto s = variant_status(json::array(), "a", 3, "softmax");
  EXPECT_EQ(s.status, "UNCHECKED");
  EXPECT_EQ(s.retries_left, 3);
  EXPECT_NE(s.message.find("kgo ops softmax"), std::string::npos);

  s = variant_status(attempts({{"a", "PASS"}}), "a", 3, "softmax");
  EXPECT_EQ(s.status, "PASS");
  EXPECT_EQ(s.retries_left, 0);
  EXPECT_EQ(s.rel_err, 0.5);

  s = variant_status(attempts({{"a", "FAIL"}, {"b", "FAIL"}}), "b", 3, "softmax");
  EXPECT_EQ(s.status, "FAIL");
  EXPECT_EQ(s.retries_left, 2);
  EXPECT_EQ(s.message, "FAIL msg");

  s = variant_status(attempts({{"a", "FAIL"}}), "b", 3, "softmax");  // edited, not yet checked
  EXPECT_EQ(s.status, "UNCHECKED");
  EXPECT_NE(s.message.find("edited since its last check"), std::string::npos);
}

TEST(OpsRetry, GivesUpWhenTheRetriesAreUsed) {
  auto four = attempts({{"a", "FAIL"}, {"b", "FAIL"}, {"c", "FAIL"}, {"d", "CRASH"}});
  auto s = variant_status(four, "d", 3, "softmax");
  EXPECT_EQ(s.status, "GAVE_UP");
  EXPECT_EQ(s.retries_left, 0);
  s = variant_status(four, "e", 3, "softmax");  // edited after the last allowed attempt
  EXPECT_EQ(s.status, "GAVE_UP");
  EXPECT_NE(s.message.find("retries are used up"), std::string::npos);
}

TEST(OpsRetry, ParseRetry) {
  EXPECT_FALSE(parse_retry(std::nullopt));
  auto t = parse_retry("softmax/v2_tiling");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->op, "softmax");
  EXPECT_EQ(t->variant, "v2_tiling");
  EXPECT_EQ(code_of([] { parse_retry("softmax"); }), ExitCode::usage);
  EXPECT_EQ(code_of([] { parse_retry("softmax/v9_magic"); }), ExitCode::usage);
}

}  // namespace
}  // namespace kgo::harness
