#include "iterate/iteration_log.hpp"

#include <gtest/gtest.h>

#include "core/memory.hpp"

namespace kgo::iterate {

namespace {

Record rec(int n, const std::string& gate, bool masked = false) {
  Record r{n, core::new_record(n)};
  r.j["quality_gate"]["result"] = gate;
  r.j["masked"] = masked;
  return r;
}

}  // namespace

TEST(IterationLogTest, OneRowPerUnmaskedRecordMaskedNamedBelow) {
  Record v0 = rec(0, "PASS");
  v0.j["performance"] = {{"latency_us", 12.5}, {"bandwidth_gbps", 1650.25}};
  v0.j["profile_evidence"]["bottleneck_type"] = "memory_bound";
  Record v1 = rec(1, "FAIL", true);
  Record v2 = rec(2, "FAIL");
  v2.j["quality_gate"]["failure_reason"] = "slower | by 3%";
  v2.j["optimization"]["action_category"] = "swizzle";
  Record v3 = rec(3, "PASS");
  v3.j["performance"] = {{"latency_us", 10.0},
                         {"comparison_with_previous",
                          {{"previous_version", "v0"}, {"latency_delta_us", -2.5}, {"latency_delta_pct", -20.0},
                           {"tflops_delta", nullptr}, {"bandwidth_delta", nullptr}}}};
  std::string log = render_iteration_log({v0, v1, v2, v3});
  EXPECT_NE(log.find("| v0 | PASS | baseline | memory_bound | 12.50 | - | 1650.2 | - |"), std::string::npos) << log;
  EXPECT_EQ(log.find("| v1 |"), std::string::npos);
  EXPECT_NE(log.find("| v2 | FAIL: slower \\| by 3% | swizzle |"), std::string::npos) << log;
  EXPECT_NE(log.find("-20.0% latency vs v0"), std::string::npos) << log;
  EXPECT_NE(log.find("Masked (discarded memory, kept out of planning): v1."), std::string::npos);
  EXPECT_NE(render_iteration_log({}).find("No iterations recorded yet"), std::string::npos);
}

TEST(IterationLogTest, ReplacesOnlyItsSection) {
  std::string readme = "# S\n\n## Notes\n\nmine\n\n## Iteration Log\n\nTBD\n\n## After\n\nkept\n";
  std::string out = readme_with_log(readme, {rec(0, "PENDING")});
  EXPECT_EQ(out.rfind("# S\n\n## Notes\n\nmine\n\n## Iteration Log\n\n", 0), 0u) << out;
  EXPECT_NE(out.find("| v0 | PENDING |"), std::string::npos);
  EXPECT_NE(out.find("\n## After\n\nkept\n"), std::string::npos);
  EXPECT_EQ(out.find("TBD"), std::string::npos);
  EXPECT_EQ(readme_with_log(out, {rec(0, "PENDING")}), out);  // regenerating is stable
}

}  // namespace kgo::iterate
