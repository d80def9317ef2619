#include "harness/check.hpp"

#include <gtest/gtest.h>

#include "core/memory.hpp"
#include "core/stamp.hpp"
#include "tests/test_util.hpp"

namespace kgo::harness {

namespace {

CheckReport report(const std::string& verdict) {
  CheckReport r;
  r.verdict = verdict;
  r.message = "msg";
  r.kernel_sha256 = std::string(64, 'b');
  r.result = nlohmann::json::parse(R"({
    "verdict": "FAIL", "max_rel_err": 0.25,
    "tolerance": {"atol": 1e-4, "rtol": 1e-3, "max_rel_err": 1e-3, "source": "default"},
    "cases": [
      {"shape": [8, 33], "trial": 0, "status": "PASS", "max_abs_err": 1e-8, "rel_err": 1e-8, "mismatches": 0,
       "message": "ok"},
      {"shape": [17, 17], "trial": 0, "status": "FAIL", "max_abs_err": 0.5, "rel_err": 0.25, "mismatches": 3,
       "first_bad_index": [2, 4], "message": "3 elements\noutside | tolerance"}]})");
  return r;
}

}  // namespace

TEST(CheckTest, CorrectnessValueMapsVerdicts) {
  EXPECT_EQ(correctness_value(report("PASS"))["status"], "PASS");
  EXPECT_EQ(correctness_value(report("TIMEOUT_FAIL"))["status"], "TIMEOUT_FAIL");
  auto crash = correctness_value(report("CRASH"));
  EXPECT_EQ(crash["status"], "FAIL");
  EXPECT_EQ(crash["details"]["verdict"], "CRASH");
  EXPECT_DOUBLE_EQ(crash["rel_err"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(crash["max_abs_err"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(crash["threshold"].get<double>(), 1e-3);
  EXPECT_EQ(crash["details"]["cases"].size(), 2u);
}

TEST(CheckTest, CorrectnessValueIsAValidRecordField) {
  test::TempDir ws;
  core::ensure_stamp_key(ws.path());  // as workspace_target makes it before the harness runs
  core::create_record(ws.path(), 0);
  CheckReport r = report("FAIL");
  core::record_measurement(ws.path(), 0, "correctness", correctness_value(r), r.kernel_sha256, "kgo check");
  auto rec = core::read_record(ws.path(), 0);
  EXPECT_EQ(rec["correctness"]["status"], "FAIL");
  EXPECT_EQ(rec["correctness"]["stamp"]["kernel_sha256"], r.kernel_sha256);
}

TEST(CheckTest, CasesTableIsOneLinePerCase) {
  std::string t = render_cases_table(report("FAIL").result);
  EXPECT_NE(t.find("| 8x33 | 0 | PASS |"), std::string::npos);
  EXPECT_NE(t.find("| 17x17 | 0 | FAIL | 0.5 |"), std::string::npos);
  EXPECT_NE(t.find("(2,4)"), std::string::npos);
  EXPECT_NE(t.find("3 elements outside / tolerance"), std::string::npos);
  EXPECT_EQ(render_cases_table(nlohmann::json::object()), "");
}

TEST(CheckTest, MaxAbsErrIgnoresUnmeasuredCases) {
  EXPECT_FALSE(max_abs_err(nlohmann::json::parse(R"({"cases": [{"status": "CRASH", "max_abs_err": null}]})")));
  EXPECT_DOUBLE_EQ(*max_abs_err(report("FAIL").result), 0.5);
}

}  // namespace kgo::harness
