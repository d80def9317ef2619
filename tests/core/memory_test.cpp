#include "core/memory.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/stamp.hpp"
#include "tests/test_util.hpp"

namespace kgo::core {

namespace {

using nlohmann::json;

const std::string k_sha(64, 'a');

using kgo::test::code_of;

class MemoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(ws() / "memory");
    ensure_stamp_key(ws());  // kgo makes the key before any measurement (core/stamp.hpp)
  }
  fs::path ws() const { return m_dir.path(); }
  test::TempDir m_dir;
};

}  // namespace

TEST(MemoryVersionTest, ParsesOnlyVN) {
  EXPECT_EQ(parse_version("v0"), 0);
  EXPECT_EQ(parse_version("v12"), 12);
  EXPECT_EQ(parse_version("V3"), 3);
  for (const char* bad : {"3", "v", "v-1", "v01", "vx", "v3.json", ""}) {
    EXPECT_EQ(code_of([&] { parse_version(bad); }), ExitCode::usage) << bad;
  }
}

TEST_F(MemoryTest, CreateNumbersRecordsAndNeverOverwrites) {
  EXPECT_EQ(create_record(ws()), 0);
  EXPECT_EQ(create_record(ws()), 1);
  EXPECT_EQ(create_record(ws(), 5), 5);
  EXPECT_EQ(create_record(ws()), 6);
  EXPECT_EQ(record_versions(ws()), (std::vector<int>{0, 1, 5, 6}));
  EXPECT_EQ(latest_version(ws()), 6);
  std::string before = test::read(record_path(ws(), 1));
  EXPECT_EQ(code_of([&] { create_record(ws(), 1); }), ExitCode::record_error);
  EXPECT_EQ(test::read(record_path(ws(), 1)), before);
  json v0 = read_record(ws(), 0);
  EXPECT_EQ(v0["optimization"]["action_category"], "baseline");
  EXPECT_EQ(v0["quality_gate"]["result"], "PENDING");
  EXPECT_TRUE(iteration_schema().validate(v0).empty());
}

TEST_F(MemoryTest, TimestampsFollowSourceDateEpoch) {
  ::setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
  create_record(ws());
  ::unsetenv("SOURCE_DATE_EPOCH");
  EXPECT_EQ(read_record(ws(), 0)["timestamp"], "2023-11-14T22:13:20Z");
}

TEST_F(MemoryTest, MaskedRecordsAreReadOnlyOnRequest) {
  create_record(ws());
  create_record(ws());
  json r = read_record(ws(), 1);
  r["masked"] = true;
  write_record(ws(), 1, r);
  std::string msg;
  EXPECT_EQ(code_of([&] { read_record(ws(), 1); }, &msg), ExitCode::record_error);
  EXPECT_NE(msg.find("--include-masked"), std::string::npos);
  EXPECT_TRUE(read_record(ws(), 1, true)["masked"].get<bool>());
  EXPECT_EQ(code_of([&] { update_record(ws(), 1, {{"optimization.hypothesis", "x"}}); }), ExitCode::record_error);
  EXPECT_EQ(code_of([&] { read_record(ws(), 9); }), ExitCode::record_error);
}

TEST_F(MemoryTest, UpdateTypesValues) {
  create_record(ws());
  json r = update_record(ws(), 0, {{"optimization.hypothesis", "loads are scalar"},
                                   {"environment", R"({"gpu": "H100", "driver": null, "clocks": null,
                                                       "torch": "2.5", "triton": "3.1", "cuda": "12.4"})"},
                                   {"environment.clocks.sm_mhz", "1980"},
                                   {"environment.clocks.locked", "false"},
                                   {"environment.clocks.mem_mhz", "2619.5"},
                                   {"environment.driver", "null"}});
  EXPECT_EQ(r["optimization"]["hypothesis"], "loads are scalar");
  EXPECT_TRUE(r["environment"]["clocks"]["sm_mhz"].is_number_integer());
  EXPECT_EQ(r["environment"]["clocks"]["locked"], false);
  EXPECT_DOUBLE_EQ(r["environment"]["clocks"]["mem_mhz"].get<double>(), 2619.5);
  EXPECT_TRUE(r["environment"]["driver"].is_null());
  EXPECT_EQ(read_record(ws(), 0), r);
  EXPECT_EQ(parse_typed_value("\"42\""), "42");
  EXPECT_EQ(parse_typed_value("-7"), -7);
  EXPECT_EQ(parse_typed_value("1e3"), 1000.0);
  EXPECT_EQ(parse_typed_value("12abc"), "12abc");
  EXPECT_EQ(code_of([] { parse_typed_value("{broken"); }), ExitCode::usage);
}

TEST_F(MemoryTest, UpdateRefusesMeasuredAndOwnedFields) {
  create_record(ws());
  std::string before = test::read(record_path(ws(), 0));
  std::string msg;
  EXPECT_EQ(code_of([&] { update_record(ws(), 0, {{"correctness.status", "PASS"}}); }, &msg), ExitCode::usage);
  EXPECT_NE(msg.find("measured field"), std::string::npos) << msg;
  for (const char* f : {"correctness", "performance.latency_us", "quality_gate.result", "git_commit", "masked",
                        "version", "timestamp", "schema_version"}) {
    EXPECT_EQ(code_of([&] { update_record(ws(), 0, {{f, "1"}}); }), ExitCode::usage) << f;
    EXPECT_TRUE(protected_field(f).has_value()) << f;
  }
  EXPECT_FALSE(protected_field("optimization.action_category"));
  EXPECT_EQ(test::read(record_path(ws(), 0)), before);
}

TEST_F(MemoryTest, InvalidWritesAreRefusedNamingTheField) {
  create_record(ws());
  std::string before = test::read(record_path(ws(), 0));
  std::string msg;
  EXPECT_EQ(code_of([&] { update_record(ws(), 0, {{"profile_evidence.bottleneck_type", "slow"}}); }, &msg),
            ExitCode::schema_invalid);
  EXPECT_NE(msg.find("'profile_evidence.bottleneck_type'"), std::string::npos) << msg;
  EXPECT_EQ(code_of([&] { update_record(ws(), 0, {{"optimization.nonsense", "1"}}); }, &msg), ExitCode::schema_invalid);
  EXPECT_NE(msg.find("'optimization.nonsense'"), std::string::npos) << msg;
  EXPECT_EQ(code_of([&] { update_record(ws(), 0, {{"environment.gpu", "H100"}}); }, &msg), ExitCode::schema_invalid);
  EXPECT_NE(msg.find("'environment.driver' is required"), std::string::npos) << msg;
  EXPECT_EQ(code_of([&] { update_record(ws(), 0, {{"optimization.hypothesis.deeper", "x"}}); }), ExitCode::usage);
  EXPECT_EQ(test::read(record_path(ws(), 0)), before);
}

TEST_F(MemoryTest, AppendAddsToListsAndValidates) {
  create_record(ws());
  json r = append_to_record(ws(), 0, "pitfalls_and_fixes",
                            R"({"error_type": "compilation", "error_message": "bad tl.load mask", "root_cause": "shape",
                                "fix_applied": "mask by n", "lesson": "mask tails"})");
  EXPECT_EQ(r["pitfalls_and_fixes"].size(), 1u);
  r = append_to_record(ws(), 0, "profile_evidence.evidence_chain",
                       R"({"evidence": "dram 40%", "inference": "scalar loads", "action": "vectorize"})");
  EXPECT_EQ(r["profile_evidence"]["evidence_chain"].size(), 1u);
  std::string msg;
  EXPECT_EQ(code_of([&] { append_to_record(ws(), 0, "pitfalls_and_fixes", R"({"error_type": "oops"})"); }, &msg),
            ExitCode::schema_invalid);
  EXPECT_NE(msg.find("pitfalls_and_fixes[1]"), std::string::npos) << msg;
  EXPECT_EQ(code_of([&] { append_to_record(ws(), 0, "optimization", "{}"); }), ExitCode::usage);
  EXPECT_EQ(code_of([&] { append_to_record(ws(), 0, "nothing_here", "{}"); }), ExitCode::usage);
  EXPECT_EQ(code_of([&] { append_to_record(ws(), 0, "correctness", "{}"); }), ExitCode::usage);
  EXPECT_EQ(read_record(ws(), 0)["pitfalls_and_fixes"].size(), 1u);
}

TEST_F(MemoryTest, MeasurementsCarryAStampOfTheKernel) {
  create_record(ws());
  record_measurement(ws(), 0, "correctness", {{"status", "PASS"}, {"rel_err", 1e-7}, {"max_abs_err", 0.0}}, k_sha, "kgo check");
  json r = read_record(ws(), 0);
  EXPECT_EQ(r["correctness"]["stamp"]["kernel_sha256"], k_sha);
  EXPECT_EQ(r["correctness"]["stamp"]["tool"], "kgo check");
  EXPECT_EQ(stamp_problem(r, "correctness", k_sha), std::nullopt);
  auto other = stamp_problem(r, "correctness", std::string(64, 'b'));
  ASSERT_TRUE(other);
  EXPECT_NE(other->find("another kernel"), std::string::npos);
  EXPECT_NE(stamp_problem(r, "performance", k_sha)->find("kgo bench"), std::string::npos);
  record_measurement(ws(), 0, "correctness", {{"status", "FAIL"}, {"rel_err", 0.5}, {"max_abs_err", 1.0}}, k_sha, "kgo check");
  EXPECT_NE(stamp_problem(read_record(ws(), 0), "correctness", k_sha)->find("FAIL"), std::string::npos);
  EXPECT_EQ(code_of([&] { record_measurement(ws(), 0, "correctness", {{"status", "MAYBE"}, {"rel_err", 0}, {"max_abs_err", 0}}, k_sha, "x"); }),
            ExitCode::schema_invalid);
  EXPECT_EQ(code_of([&] { record_measurement(ws(), 0, "optimization", json::object(), k_sha, "x"); }), ExitCode::internal);
  EXPECT_EQ(code_of([&] { record_measurement(ws(), 0, "performance", {{"latency_us", 3.0}}, "short", "x"); }),
            ExitCode::schema_invalid);
}

TEST_F(MemoryTest, PerformanceDeltasAgainstThePreviousAcceptedVersion) {
  for (int i = 0; i < 3; ++i) create_record(ws());
  record_measurement(ws(), 0, "performance", {{"latency_us", 100.0}, {"bandwidth_gbps", 1000.0}}, k_sha, "kgo bench");
  EXPECT_TRUE(read_record(ws(), 0)["performance"]["comparison_with_previous"].is_null());
  json v0 = read_record(ws(), 0);
  v0["quality_gate"]["result"] = "PASS";
  v0["git_commit"] = std::string(40, 'c');
  write_record(ws(), 0, v0);
  json v1 = read_record(ws(), 1);  // rejected: not a baseline for deltas
  v1["quality_gate"]["result"] = "FAIL";
  write_record(ws(), 1, v1);
  EXPECT_EQ(code_of([&] { record_measurement(ws(), 1, "performance", {{"latency_us", 1.0}}, k_sha, "x"); }),
            ExitCode::record_error);
  record_measurement(ws(), 2, "performance", {{"latency_us", 80.0}, {"bandwidth_gbps", 1250.0}}, k_sha, "kgo bench");
  json cmp = read_record(ws(), 2)["performance"]["comparison_with_previous"];
  EXPECT_EQ(cmp["previous_version"], "v0");
  EXPECT_DOUBLE_EQ(cmp["latency_delta_us"].get<double>(), -20.0);
  EXPECT_DOUBLE_EQ(cmp["latency_delta_pct"].get<double>(), -20.0);
  EXPECT_DOUBLE_EQ(cmp["bandwidth_delta"].get<double>(), 250.0);
  EXPECT_TRUE(cmp["tflops_delta"].is_null());
}

TEST_F(MemoryTest, WritesAreAtomicAndLeaveNoTemporaryFiles) {
  create_record(ws());
  update_record(ws(), 0, {{"optimization.hypothesis", "h"}});
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(ws() / "memory")) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"v0.json"});
  EXPECT_EQ(test::read(record_path(ws(), 0)), dump_record(read_record(ws(), 0)));
}

}  // namespace kgo::core
