#include "harness/target.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "tests/test_util.hpp"

namespace kgo::harness {

TEST(TargetTest, DtypeNames) {
  EXPECT_EQ(torch_dtype_name("fp32"), "float32");
  EXPECT_EQ(torch_dtype_name("bf16"), "bfloat16");
  EXPECT_EQ(torch_dtype_name("fp8"), "float8_e4m3fn");
  EXPECT_EQ(torch_dtype_name("float16"), "float16");
  try {
    torch_dtype_name("fp12");
    FAIL() << "fp12 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("bf16"), std::string::npos);
  }
}

TEST(TargetTest, ArgsAreNameValuePairs) {
  auto a = parse_args({"eps=1e-5", "mode=fast=yes"});
  EXPECT_EQ(a["eps"], "1e-5");
  EXPECT_EQ(a["mode"], "fast=yes");
  EXPECT_THROW(parse_args({"novalue"}), Error);
  EXPECT_THROW(parse_args({"=3"}), Error);
}

TEST(TargetTest, InfersTheOpFromOneTritonEntry) {
  EXPECT_EQ(infer_op("import triton\n\ndef triton_softmax(x):\n    pass\n"), "softmax");
  EXPECT_EQ(infer_op("def triton_layer_norm (x, w):\n"), "layer_norm");
  EXPECT_FALSE(infer_op("def setup(**kw):\n    pass\ndef run_kernel(**kw):\n    pass\n"));
  EXPECT_FALSE(infer_op("def triton_a(x):\n    pass\ndef triton_b(x):\n    pass\n"));
  EXPECT_FALSE(infer_op("    def triton_nested(x):\n"));  // not at module level
}

TEST(TargetTest, DeviceFlag) {
  EXPECT_EQ(resolve_device("cpu"), "cpu");
  EXPECT_EQ(resolve_device("cuda"), "cuda");
  std::string a = resolve_device("auto");
  EXPECT_TRUE(a == "cpu" || a == "cuda");
  EXPECT_THROW(resolve_device("tpu"), Error);
}

TEST(TargetTest, WorkspaceOpComesFromRoofline) {
  test::TempDir dir;
  EXPECT_FALSE(workspace_op(dir.path()));
  test::write(dir / "roofline.json", R"({"op": "layer_norm"})");
  EXPECT_EQ(workspace_op(dir.path()), "layer_norm");
  test::write(dir / "roofline.json", R"({"op": "custom"})");
  EXPECT_FALSE(workspace_op(dir.path()));
  test::write(dir / "roofline.json", "not json");
  EXPECT_FALSE(workspace_op(dir.path()));
}

TEST(TargetTest, RequestNamesAbsolutePathsAndShapes) {
  Target t;
  t.kernel = "/w/kernel.py";
  t.shapes = {{8, 33}, {1}};
  t.op = "softmax";
  auto r = target_request(t);
  EXPECT_EQ(r["kernel"], "/w/kernel.py");
  EXPECT_TRUE(r["reference"].is_null());
  EXPECT_EQ(r["shapes"], nlohmann::json::parse("[[8,33],[1]]"));
  EXPECT_EQ(r["op"], "softmax");
  EXPECT_EQ(shapes_text(t.shapes), "8x33, 1");
}

}  // namespace kgo::harness
