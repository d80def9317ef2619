#include "roofline/catalog.hpp"

#include <gtest/gtest.h>

#include <set>

#include "core/error.hpp"

namespace kgo::roofline {
namespace {

struct Expect {
  std::string op;
  std::vector<long long> shape;
  std::string dtype;
  double flops;
  double bytes;
};

// Every value below is worked out by hand from the op's definition (see catalog.cpp / --explain).
std::vector<Expect> hand_computed() {
  return {
      // N = 3000: one multiply by alpha and one add each; x, y read and z written at 4 bytes.
      {"add", {1000, 3}, "fp32", 2 * 3000, 3 * 3000 * 4},
      {"mul", {7}, "bf16", 7, 3 * 7 * 2},
      // x / (1 + exp(-x)): negate, exp, add, divide.
      {"silu", {4, 8}, "fp16", 4 * 32, 2 * 32 * 2},
      {"relu", {10, 10}, "fp16", 100, 2 * 100 * 2},
      // exact GELU: 5 FLOPs per element.
      {"gelu", {4, 8}, "fp32", 5 * 32, 2 * 32 * 4},
      // x^3 (2), * c, + x, * sqrt(2/pi), tanh, + 1, * x, * 0.5 = 9.
      {"gelu_tanh", {4, 8}, "fp32", 9 * 32, 2 * 32 * 4},
      {"leaky_relu", {3, 7}, "fp16", 2 * 21, 2 * 21 * 2},
      {"sigmoid", {10}, "fp32", 4 * 10, 2 * 10 * 4},
      {"tanh", {2, 5}, "bf16", 10, 2 * 10 * 2},
      {"elu", {6}, "fp32", 4 * 6, 2 * 6 * 4},
      {"selu", {6}, "fp32", 5 * 6, 2 * 6 * 4},
      {"hardsigmoid", {2, 2}, "fp32", 4 * 4, 2 * 4 * 4},
      {"hardtanh", {9}, "fp16", 2 * 9, 2 * 9 * 2},
      {"softplus", {3, 3}, "fp32", 4 * 9, 2 * 9 * 4},
      {"softsign", {5}, "fp32", 3 * 5, 2 * 5 * 4},
      // 16 x 256 rows of 512: one compare each, one value per row.
      {"max", {16, 256, 512}, "fp32", 16.0 * 256 * 512, (16.0 * 256 * 512 + 16 * 256) * 4},
      {"min", {8, 16}, "bf16", 128, (128 + 8) * 2},
      {"prod", {8, 16}, "fp32", 128, (128 + 8) * 4},
      // indices are int64: 8 bytes per row whatever the dtype.
      {"argmax", {8, 16}, "fp16", 128, 128 * 2 + 8 * 8},
      {"argmin", {100}, "fp32", 100, 100 * 4 + 1 * 8},
      {"cumsum", {8, 16}, "fp32", 128, 2 * 128 * 4},
      {"cumprod", {8, 16}, "fp32", 128, 2 * 128 * 4},
      // Pools: N x C planes, input sizes, output sizes, window. 1-D: 8 planes of 10 -> 4, window 3.
      {"max_pool1d", {4, 2, 10, 4, 3}, "fp16", 3 * 4 * 8, (80 + 32) * 2},
      {"avg_pool1d", {4, 2, 10, 4, 3}, "fp32", (3 + 1) * 4 * 8, (80 + 32) * 4},
      // 6 planes of 8x8 -> 7x7 (2x2 window, stride 1): 4 compares per output.
      {"max_pool2d", {2, 3, 8, 8, 7, 7, 2, 2}, "fp32", 4 * 49 * 6, (6 * 64 + 6 * 49) * 4},
      // KernelBench level 1 #45: 16 x 64 planes of 2048^2, window 11 = stride -> (2048 - 11) / 11 + 1 = 186.
      {"avg_pool2d", {16, 64, 2048, 2048, 186, 186, 11, 11}, "fp32", 122.0 * 186 * 186 * 1024,
       (1024.0 * 2048 * 2048 + 1024.0 * 186 * 186) * 4},
      // 2 planes of 4^3 -> 2^3 with a 3^3 window (padded): 27 compares per output.
      {"max_pool3d", {1, 2, 4, 4, 4, 2, 2, 2, 3, 3, 3}, "fp32", 27 * 8 * 2, (128 + 16) * 4},
      {"avg_pool3d", {2, 1, 4, 4, 4, 2, 2, 2, 2, 2, 2}, "bf16", (8 + 1) * 8 * 2, (128 + 16) * 2},
      // N = 2*3*4*5 = 120, C = 3: per element 4, per channel 2; x, y and four C-vectors.
      {"batch_norm", {2, 3, 4, 5}, "fp32", 4 * 120 + 2 * 3, (2 * 120 + 4 * 3) * 4},
      {"batch_norm", {8, 4}, "fp32", 4 * 32 + 2 * 4, (2 * 32 + 4 * 4) * 4},
      // [N=2, C=6, S=10] with G=3 groups of 2 channels: 6 groups of 20; weight and bias of 6.
      {"group_norm", {2, 3, 2, 10}, "fp32", 7 * 120 + 4 * 6, (2 * 120 + 2 * 6) * 4},
      // [2, 3, 4x5]: 6 instances of 20, no weight.
      {"instance_norm", {2, 3, 4, 5}, "fp16", 5 * 120 + 4 * 6, 2 * 120 * 2},
      {"l2_norm", {8, 16}, "fp32", 3 * 128 + 8, 2 * 128 * 4},
      {"l1_norm", {8, 16}, "fp32", 3 * 128, 2 * 128 * 4},
      {"frobenius_norm", {4, 5}, "fp32", 3 * 20 + 1, 2 * 20 * 4},
      // losses: p and t read, one scalar written.
      {"mse_loss", {4, 8}, "fp32", 3 * 32 + 1, (2 * 32 + 1) * 4},
      {"huber_loss", {4, 8}, "fp32", 7 * 32 + 1, (2 * 32 + 1) * 4},
      {"kl_div", {4, 8}, "fp32", 4 * 32 + 1, (2 * 32 + 1) * 4},
      {"hinge_loss", {128}, "bf16", 4 * 128 + 1, (2 * 128 + 1) * 2},
      // 4 rows of 8: 6 per element (dot product and two squared norms), 6 per row, one mean.
      {"cosine_similarity_loss", {4, 8}, "fp32", 6 * 32 + 6 * 4 + 1, (2 * 32 + 1) * 4},
      // anchor, positive, negative read: two distances at 4 per element, 6 per row, one mean.
      {"triplet_margin_loss", {4, 8}, "fp32", 8 * 32 + 6 * 4 + 1, (3 * 32 + 1) * 4},
      // Convolutions, no bias: N, C, input sizes, K, output sizes, window, G. 2 x 8 x 5 x 5 = 400 outputs, each
      // C / G = 2 channels x 9 taps; 2 x 4 x 81 inputs, 8 x 2 x 9 weights.
      {"conv2d", {2, 4, 9, 9, 8, 5, 5, 3, 3, 2}, "fp32", 2 * 400 * 2 * 9, (648 + 144 + 400) * 4},
      {"conv1d", {1, 3, 10, 4, 8, 3, 1}, "fp16", 2 * 32 * 3 * 3, (30 + 36 + 32) * 2},
      {"conv3d", {1, 2, 4, 4, 4, 3, 2, 2, 2, 3, 3, 3, 1}, "fp32", 2 * 24 * 2 * 27, (128 + 162 + 24) * 4},
      // KernelBench level 1 #63: 16 x 16 x 1024^2, 128 filters of 3 x 3, valid: 1022^2 outputs per filter.
      {"conv2d", {16, 16, 1024, 1024, 128, 1022, 1022, 3, 3, 1}, "fp32", 2.0 * 16 * 128 * 1022 * 1022 * 16 * 9,
       (16.0 * 16 * 1024 * 1024 + 128 * 16 * 9 + 16.0 * 128 * 1022 * 1022) * 4},
      // Transposed: every input times K / G x taps weights. 1-D stride 2: (10 - 1) x 2 + 3 = 21 outputs.
      {"conv_transpose1d", {1, 3, 10, 4, 21, 3, 1}, "fp32", 2 * 30 * 4 * 3, (30 + 36 + 84) * 4},
      {"conv_transpose2d", {2, 4, 5, 5, 6, 11, 11, 3, 3, 2}, "bf16", 2 * 200 * 3 * 9, (200 + 108 + 1452) * 2},
      {"conv_transpose3d", {1, 2, 3, 3, 3, 2, 5, 5, 5, 3, 3, 3, 1}, "fp32", 2 * 54 * 2 * 27, (54 + 108 + 250) * 4},
      // A 256 x 1024, x 1024, y 256.
      {"matvec", {256, 1024}, "fp32", 2.0 * 256 * 1024, (256.0 * 1024 + 1024 + 256) * 4},
      // a 64, B and C 64 x 32.
      {"diag_matmul", {64, 32}, "fp16", 64 * 32, (64 + 2 * 64 * 32) * 2},
      {"dropout", {5, 6}, "fp32", 2 * 30, 2 * 30 * 4},
      // The anchor: softmax 4096x4096 fp32 moves 134,217,728 bytes.
      {"softmax", {4096, 4096}, "fp32", 5.0 * 4096 * 4096, 134217728},
      {"softmax", {2, 3, 5}, "fp32", 5 * 30, 2 * 30 * 4},
      // 6 rows of 5: five per element, one log per row.
      {"log_softmax", {2, 3, 5}, "fp32", 5 * 30 + 6, 2 * 30 * 4},
      // 8 rows of 16: 7 per element + 4 per row; x, y plus weight and bias (16 each).
      {"layer_norm", {8, 16}, "fp32", 7 * 128 + 4 * 8, (2 * 128 + 2 * 16) * 4},
      {"rms_norm", {8, 16}, "bf16", 4 * 128 + 3 * 8, (2 * 128 + 16) * 2},
      {"sum", {8, 16}, "fp32", 128, (128 + 8) * 4},
      {"sum", {100}, "fp32", 100, (100 + 1) * 4},
      {"mean", {8, 16}, "fp32", 128 + 8, (128 + 8) * 4},
      // 32 rows of 1000 classes: logits + int64 targets + one scalar loss.
      {"cross_entropy", {32, 1000}, "fp32", 4 * 32000 + 4 * 32 + 1, 32000 * 4 + 32 * 8 + 4},
      {"matmul", {4096, 4096, 4096}, "bf16", 2.0 * 4096 * 4096 * 4096, 3.0 * 4096 * 4096 * 2},
      {"matmul", {128, 256, 64}, "fp32", 2.0 * 128 * 256 * 64, (128 * 64 + 64 * 256 + 128 * 256) * 4},
      {"matmul", {64, 32}, "fp32", 2.0 * 64 * 32 * 32, (64 * 32 + 32 * 32 + 64 * 32) * 4},  // K = N
      {"bmm", {4, 128, 256, 64}, "fp16", 4 * 2.0 * 128 * 256 * 64, 4.0 * (128 * 64 + 64 * 256 + 128 * 256) * 2},
      {"bmm", {2, 16, 8}, "fp8", 2 * 2.0 * 16 * 8 * 8, 2.0 * (16 * 8 + 8 * 8 + 16 * 8) * 1},
      {"attention", {2, 8, 1024, 64}, "bf16", 4.0 * 2 * 8 * 1024 * 1024 * 64 + 6.0 * 2 * 8 * 1024 * 1024,
       4.0 * 2 * 8 * 1024 * 64 * 2},
      {"attention", {128, 64}, "fp32", 4.0 * 128 * 128 * 64 + 6.0 * 128 * 128, 4.0 * 128 * 64 * 4},
      {"attention", {4, 256, 32}, "fp16", 4.0 * 4 * 256 * 256 * 32 + 6.0 * 4 * 256 * 256, 4.0 * 4 * 256 * 32 * 2},
  };
}

TEST(Catalog, EveryOpMatchesHandComputedValues) {
  std::set<std::string> covered;
  for (const Expect& e : hand_computed()) {
    const OpInfo& op = find_op(e.op);
    Work w = op_work(op, e.shape, find_dtype(e.dtype));
    EXPECT_DOUBLE_EQ(w.flops, e.flops) << e.op;
    EXPECT_DOUBLE_EQ(w.bytes, e.bytes) << e.op;
    EXPECT_GE(w.steps.size(), 3u) << e.op;
    covered.insert(op.name);
  }
  std::set<std::string> all;
  for (const OpInfo& op : ops()) all.insert(op.name);
  EXPECT_EQ(covered, all) << "every catalog op needs a hand-computed case";
  EXPECT_GE(all.size(), 14u);
}

TEST(Catalog, SeedOpsAndAdditionsArePresent) {
  for (const char* name : {"add", "mul", "relu", "gelu", "softmax", "layer_norm", "matmul", "dropout",
                           "attention", "cross_entropy", "sum", "mean", "rms_norm", "bmm"}) {
    EXPECT_EQ(find_op(name).name, name);
  }
  EXPECT_EQ(find_op("layernorm").name, "layer_norm");
  EXPECT_EQ(find_op("vector_add").name, "add");
  EXPECT_EQ(lookup_op("vector_mul"), &find_op("mul"));
  EXPECT_EQ(lookup_op("no_such_op"), nullptr);
  EXPECT_EQ(find_op("batched_matmul").name, "bmm");
  EXPECT_TRUE(find_op("matmul").matmul_like);
  EXPECT_TRUE(find_op("attention").matmul_like);
  EXPECT_FALSE(find_op("softmax").matmul_like);
  EXPECT_FALSE(find_op("matvec").matmul_like);
  EXPECT_EQ(find_op("swish").name, "silu");
  EXPECT_EQ(find_op("new_gelu").name, "gelu_tanh");
  EXPECT_EQ(find_op("smooth_l1_loss").name, "huber_loss");
  EXPECT_EQ(find_op("amax").name, "max");
}

TEST(Catalog, StepsShowTheArithmetic) {
  Work w = op_work(find_op("softmax"), {4096, 4096}, find_dtype("fp32"));
  std::string all;
  for (const auto& s : w.steps) all += s + "\n";
  EXPECT_NE(all.find("16,777,216"), std::string::npos) << all;
  EXPECT_NE(all.find("134,217,728"), std::string::npos) << all;
  EXPECT_NE(all.find("83,886,080"), std::string::npos) << all;
}

TEST(Catalog, DtypesMapToComputeMetrics) {
  EXPECT_EQ(find_dtype("bf16").bytes, 2);
  EXPECT_EQ(find_dtype("bf16").tensor_metric, "bf16_tensor");
  EXPECT_EQ(find_dtype("bf16").vector_metric, "fp32");
  EXPECT_EQ(find_dtype("fp32").tensor_metric, "fp32");
  EXPECT_EQ(find_dtype("tf32").tensor_metric, "tf32_tensor");
  EXPECT_EQ(find_dtype("fp8").bytes, 1);
  EXPECT_EQ(find_dtype("fp64").vector_metric, "fp64");
}

TEST(Catalog, RejectsWhatDoesNotFit) {
  auto code = [](auto fn) {
    try {
      fn();
    } catch (const Error& e) {
      return e.code();
    }
    return ExitCode::ok;
  };
  const DType& f = find_dtype("fp32");
  EXPECT_EQ(code([] { find_op("conv4d"); }), ExitCode::usage);
  EXPECT_EQ(code([] { find_dtype("fp12"); }), ExitCode::usage);
  EXPECT_EQ(code([&] { op_work(find_op("matmul"), {4096}, f); }), ExitCode::usage);
  EXPECT_EQ(code([&] { op_work(find_op("matmul"), {2, 2, 2, 2}, f); }), ExitCode::usage);
  EXPECT_EQ(code([&] { op_work(find_op("bmm"), {2, 2}, f); }), ExitCode::usage);
  EXPECT_EQ(code([&] { op_work(find_op("attention"), {1, 2, 3, 4, 5}, f); }), ExitCode::usage);
  EXPECT_EQ(code([&] { op_work(find_op("softmax"), {}, f); }), ExitCode::usage);
  EXPECT_EQ(code([&] { op_work(find_op("softmax"), {4, 0}, f); }), ExitCode::usage);
  EXPECT_EQ(code([&] { op_work(find_op("group_norm"), {4, 8}, f); }), ExitCode::usage);
  EXPECT_EQ(code([&] { op_work(find_op("instance_norm"), {4, 8}, f); }), ExitCode::usage);
  EXPECT_EQ(code([&] { op_work(find_op("batch_norm"), {4}, f); }), ExitCode::usage);
  EXPECT_EQ(code([&] { op_work(find_op("matvec"), {4, 8, 2}, f); }), ExitCode::usage);
  EXPECT_EQ(code([&] { op_work(find_op("diag_matmul"), {4}, f); }), ExitCode::usage);
  EXPECT_EQ(code([&] { op_work(find_op("max_pool2d"), {2, 3, 8, 8}, f); }), ExitCode::usage);
  EXPECT_EQ(code([&] { op_work(find_op("avg_pool1d"), {2, 3, 8, 7, 2, 1}, f); }), ExitCode::usage);
  EXPECT_EQ(code([&] { op_work(find_op("conv2d"), {1, 3, 4, 4, 4, 2, 2, 3, 3, 2}, f); }), ExitCode::usage);  // G
  EXPECT_EQ(code([&] { op_work(find_op("conv1d"), {1, 3, 10, 4, 8, 3}, f); }), ExitCode::usage);
}

TEST(Catalog, ConventionsStateTheCountingChoices) {
  std::string all;
  for (const auto& c : counting_conventions()) all += c;
  EXPECT_NE(all.find("exp"), std::string::npos);
  EXPECT_NE(all.find("division"), std::string::npos);
  EXPECT_NE(find_op("layer_norm").choices.find("weight and bias"), std::string::npos);
  EXPECT_NE(find_op("gelu").choices.find("erf"), std::string::npos);
}

}  // namespace
}  // namespace kgo::roofline
