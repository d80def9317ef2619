#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
#include <sstream>

#include "roofline/cases.hpp"
#include "roofline/render.hpp"
#include "tests/roofline/wiki_registry.hpp"
#include "tests/test_util.hpp"

namespace kgo::roofline {
namespace {

const std::filesystem::path kGolden = std::filesystem::path(KGO_SOURCE_DIR) / "tests/roofline/golden";

Analysis analysis_for(const specs::Registry& reg, const std::string& op, std::vector<std::vector<long long>> shapes,
                      const std::string& dtype, std::optional<long long> grid = std::nullopt) {
  CaseRequest req;
  req.op = op;
  req.shapes = std::move(shapes);
  req.dtype = dtype;
  CaseSet set = build_cases(req);
  Inputs in = select_inputs(reg, set.compute_metric, grid.has_value());
  return analyze(set.op, set.dtype, set.matmul_like, set.cases, in, 0.9, grid, {});
}

std::string sections(const Analysis& a, const std::string& arch) {
  return "## Roofline Analysis\n\n" + roofline_section(a) + "\n## Stop Conditions\n\n" + stop_conditions_section(a) +
         "\n## ISA Optimization Targets\n\n" + isa_section(arch, a);
}

// Compares with tests/roofline/golden/<name>; KGO_UPDATE_GOLDEN=1 rewrites the file instead.
void expect_golden(const std::string& name, const std::string& actual) {
  std::filesystem::path path = kGolden / name;
  if (std::getenv("KGO_UPDATE_GOLDEN")) {
    test::write(path, actual);
    GTEST_SKIP() << "golden file rewritten: " << path;
  }
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  EXPECT_EQ(actual, test::read(path)) << "differs from " << path << " (KGO_UPDATE_GOLDEN=1 to accept)";
}

// Every line that states a bandwidth or FLOP rate carries a citation on the same line.
void expect_every_rate_cited(const std::string& md) {
  std::istringstream in(md);
  std::string line;
  std::regex rate(R"([0-9][0-9.,]*\s*(TB/s|GB/s|TFLOPS|TFLOP/s|GFLOPS|B/s|FLOP/s))");
  while (std::getline(in, line)) {
    if (std::regex_search(line, rate)) {
      EXPECT_NE(line.find("<- <gpu-wiki>/"), std::string::npos) << line;
    }
  }
}

TEST(Readme, GoldenSoftmaxFp32OnH100) {
  auto reg = test::wiki_registry("H100 SXM", {"hbm_bandwidth", "fp32"});
  Analysis a = analysis_for(reg, "softmax", {{256, 256}, {1024, 1024}, {4096, 4096}}, "fp32");
  std::string md = sections(a, "Hopper");
  expect_every_rate_cited(md);
  EXPECT_NE(md.find("134,217,728"), std::string::npos);
  EXPECT_NE(md.find(reg.get("hbm_bandwidth")->citation), std::string::npos);
  EXPECT_NE(md.find("latency floor unknown"), std::string::npos);
  EXPECT_NE(md.find("not applicable to softmax"), std::string::npos);
  expect_golden("softmax_fp32_h100.md", md);
}

TEST(Readme, GoldenMatmulBf16OnH200WithLaunchFloorAndGrid) {
  auto reg = test::wiki_registry("H200", {"hbm_bandwidth", "bf16_tensor", "sm_count"});
  specs::SpecEntry launch;
  launch.metric = "launch_latency";
  launch.measured = true;
  launch.value = 4.2;
  launch.value_text = "4.2";
  launch.unit = "us";
  launch.si_value = 4.2e-6;
  launch.citation = "<gpu-wiki>/measured/H200-2026-11-20.md:L9";
  reg.specs.push_back(launch);
  Analysis a = analysis_for(reg, "matmul", {{256, 256, 256}, {4096, 4096, 4096}}, "bf16", 264);
  EXPECT_EQ(a.shapes[0].governing, Floor::launch_latency);
  EXPECT_EQ(a.shapes[1].governing, Floor::compute);
  std::string md = sections(a, "Hopper");
  expect_every_rate_cited(md);
  EXPECT_NE(md.find("HGMMA"), std::string::npos);
  EXPECT_NE(md.find("TMA"), std::string::npos);
  EXPECT_NE(md.find("the launch-latency floor"), std::string::npos);
  expect_golden("matmul_bf16_h200.md", md);
}

TEST(Readme, IsaSectionPerArchitecture) {
  auto reg = test::wiki_registry("MI300X", {"hbm_bandwidth", "bf16_tensor"});
  Analysis mm = analysis_for(reg, "matmul", {{1024, 1024, 1024}}, "bf16");
  std::string amd = isa_section("CDNA3", mm);
  EXPECT_NE(amd.find("buffer_load_dwordx4"), std::string::npos) << amd;
  EXPECT_NE(amd.find("scratch"), std::string::npos) << amd;
  EXPECT_NE(amd.find("v_mfma"), std::string::npos) << amd;
  EXPECT_EQ(amd.find("HGMMA"), std::string::npos) << amd;
  std::string unknown = isa_section("Z80", mm);
  EXPECT_NE(unknown.find("not in kgo's ISA table"), std::string::npos) << unknown;
  EXPECT_EQ(unknown.find("[ ]"), std::string::npos) << unknown;
}

}  // namespace
}  // namespace kgo::roofline
