#include "roofline/catalog.hpp"

#include <functional>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/workspace.hpp"
#include "roofline/format.hpp"
#include "roofline/op_work.hpp"

namespace kgo::roofline {

namespace {

using namespace work;

struct Entry {
  OpInfo info;
  WorkFn work;
};

const std::vector<Entry>& entries() {
  static const std::vector<Entry> table = {
      {{"add", {"vector_add", "elementwise_add"}, "z = x + alpha * y (torch.add)", "any dims (N = product)",
        "2 x N", "3 x N x width",
        "one multiply by alpha and one add per element (alpha = 1 is counted too: the kernel takes alpha); x and "
        "y both have the full shape (no broadcast), z is written once"},
       elementwise(2, 3)},
      {{"mul", {"vector_mul"}, "z = x * y", "any dims (N = product)", "N", "3 x N x width",
        "one multiply per element; x and y both have the full shape (no broadcast), z is written once"},
       elementwise(1, 3)},
      {{"relu", {}, "y = max(x, 0)", "any dims (N = product)", "N", "2 x N x width",
        "one max per element"},
       elementwise(1, 2)},
      {{"gelu", {}, "y = 0.5 x (1 + erf(x / sqrt(2))) (exact form)", "any dims (N = product)", "5 x N",
        "2 x N x width",
        "x * (1/sqrt 2), erf, + 1, * x, * 0.5: five FLOPs per element, erf counted as one"},
       elementwise(5, 2)},
      {{"silu", {"swish"}, "y = x * sigmoid(x) = x / (1 + exp(-x))", "any dims (N = product)", "4 x N", "2 x N x width",
        "negate, exp, + 1, divide: four FLOPs per element, exp counted as one"},
       elementwise(4, 2)},
      {{"gelu_tanh", {"new_gelu", "gelu_new"},
        "y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (tanh form, GPT-2's 'new GELU')",
        "any dims (N = product)", "9 x N", "2 x N x width",
        "x^3 (two multiplies), * 0.044715, + x, * sqrt(2/pi), tanh, + 1, * x, * 0.5: nine FLOPs per element, "
        "tanh counted as one"},
       elementwise(9, 2)},
      {{"leaky_relu", {}, "y = x if x > 0 else slope * x (slope in [0, 1]: max(x, slope * x))",
        "any dims (N = product)", "2 x N", "2 x N x width", "one multiply by the slope and one max per element"},
       elementwise(2, 2)},
      {{"sigmoid", {}, "y = 1 / (1 + exp(-x))", "any dims (N = product)", "4 x N", "2 x N x width",
        "negate, exp, + 1, divide: four FLOPs per element, exp counted as one"},
       elementwise(4, 2)},
      {{"tanh", {}, "y = tanh(x)", "any dims (N = product)", "N", "2 x N x width",
        "one transcendental per element"},
       elementwise(1, 2)},
      {{"elu", {}, "y = x if x > 0 else alpha (exp(x) - 1)", "any dims (N = product)", "4 x N", "2 x N x width",
        "compare, exp, - 1, * alpha: four FLOPs per element (alpha = 1 is counted too: the kernel takes alpha)"},
       elementwise(4, 2)},
      {{"selu", {}, "y = scale (x if x > 0 else alpha (exp(x) - 1)), fixed alpha and scale",
        "any dims (N = product)", "5 x N", "2 x N x width", "as elu, plus * scale: five FLOPs per element"},
       elementwise(5, 2)},
      {{"hardsigmoid", {}, "y = min(max(x + 3, 0), 6) / 6", "any dims (N = product)", "4 x N", "2 x N x width",
        "+ 3, max, min, divide: four FLOPs per element"},
       elementwise(4, 2)},
      {{"hardtanh", {}, "y = min(max(x, -1), 1)", "any dims (N = product)", "2 x N", "2 x N x width",
        "one max and one min per element"},
       elementwise(2, 2)},
      {{"softplus", {}, "y = log(1 + exp(x)), y = x beyond the threshold 20 (beta = 1)", "any dims (N = product)",
        "4 x N", "2 x N x width", "compare with the threshold, exp, + 1, log: four FLOPs per element"},
       elementwise(4, 2)},
      {{"softsign", {}, "y = x / (1 + |x|)", "any dims (N = product)", "3 x N", "2 x N x width",
        "abs, + 1, divide: three FLOPs per element"},
       elementwise(3, 2)},
      {{"dropout", {}, "y = x * mask / (1 - p), training mode", "any dims (N = product)", "2 x N",
        "2 x N x width",
        "the random numbers are generated inside the kernel (their integer ops are not FLOPs) and no mask "
        "tensor is written; compare with p and scale-or-zero: two FLOPs per element"},
       elementwise(2, 2)},
      {{"softmax", {}, "softmax over the last dim", "ROWSxCOLS... (last dim reduced; a 1-D shape is one row)",
        "5 x N", "2 x N x width",
        "per element: max, subtract max, exp, sum, divide = five FLOPs (exp and division counted as one each); "
        "x is read once and y written once (a single-pass, on-chip row)"},
       rowwise(5, 0, 2, 0, 0)},
      {{"log_softmax", {}, "log softmax over the last dim",
        "ROWSxCOLS... (last dim reduced; a 1-D shape is one row)", "5 x N + rows", "2 x N x width",
        "per element: max, subtract max, exp, sum, subtract the log-sum = five FLOPs; per row: log = one; x is "
        "read once and y written once"},
       rowwise(5, 1, 2, 0, 0)},
      {{"layer_norm", {"layernorm", "layer-norm"}, "layer norm over the last dim, with weight and bias",
        "ROWSxCOLS... (last dim normalized)", "7 x N + 4 x rows", "(2 x N + 2 x cols) x width",
        "per element: mean sum, subtract mean, square, variance sum, * rstd, * weight, + bias = 7; per row: "
        "mean / cols, variance / cols, + eps, rsqrt = 4; weight and bias (cols elements each) are read once; "
        "mean and rstd are not written (inference)"},
       rowwise(7, 4, 2, 2, 0)},
      {{"rms_norm", {"rmsnorm"}, "RMS norm over the last dim, with weight", "ROWSxCOLS... (last dim normalized)",
        "4 x N + 3 x rows", "(2 x N + cols) x width",
        "per element: square, sum, * rstd, * weight = 4; per row: / cols, + eps, rsqrt = 3; weight (cols "
        "elements) is read once; rstd is not written"},
       rowwise(4, 3, 2, 1, 0)},
      {{"batch_norm", {"batchnorm"}, "batch norm in inference: running mean and variance, weight and bias",
        "NxC or NxCxS... (channels are dim 1)", "4 x N + 2 x C", "(2 x N + 4 x C) x width",
        "per element: - mean, * rstd, * weight, + bias = 4; per channel: var + eps, rsqrt = 2; running mean, "
        "running variance, weight and bias (C elements each) are read once; nothing is updated (inference)"},
       batch_norm},
      {{"group_norm", {"groupnorm"}, "group norm with per-channel weight and bias",
        "NxGxCPGxS... (the input [N, C, S...] viewed with C = G x CPG channels per group)",
        "7 x N + 4 x N x G", "(2 x N + 2 x C) x width",
        "as layer_norm over each of the N x G groups: per element 7, per group 4; weight and bias (C = G x CPG "
        "elements each) are read once; mean and rstd are not written"},
       group_norm},
      {{"instance_norm", {"instancenorm"}, "instance norm, no affine weight (torch's default)",
        "NxCxS... (each of the N x C channels normalized over S...)", "5 x N + 4 x N x C", "2 x N x width",
        "per element: mean sum, - mean, square, variance sum, * rstd = 5; per channel instance: / count twice, "
        "+ eps, rsqrt = 4; no weight or bias; mean and rstd are not written"},
       instance_norm},
      {{"l2_norm", {"l2_normalize"}, "y = x / ||x||_2 over the last dim", "ROWSxCOLS... (last dim normalized)",
        "3 x N + rows", "2 x N x width", "per element: square, sum, divide = 3; per row: sqrt = 1; no eps"},
       rowwise(3, 1, 2, 0, 0)},
      {{"l1_norm", {"l1_normalize"}, "y = x / sum(|x|) over the last dim", "ROWSxCOLS... (last dim normalized)",
        "3 x N", "2 x N x width", "per element: abs, sum, divide = 3; no eps"},
       rowwise(3, 0, 2, 0, 0)},
      {{"frobenius_norm", {"fro_norm"}, "y = x / ||x||_F over the whole tensor", "any dims (N = product)",
        "3 x N + 1", "2 x N x width",
        "per element: square, sum, divide = 3; one sqrt; x is counted read once (a kernel that cannot keep the "
        "tensor on chip reads it twice)"},
       [](const Dims& d, int w) {
         double n = product(d);
         Work out{3 * n + 1, 2 * n * w, {}};
         out.steps.push_back(fmt::format("N = {} = {} elements", dims_product(d), fmt_count(n)));
         out.steps.push_back(fmt::format("FLOPs = 3 x N + 1 = {}", fmt_count(out.flops)));
         out.steps.push_back(fmt::format("bytes = 2 x N x {} B = {}", w, fmt_count(out.bytes)));
         return out;
       }},
      {{"sum", {"row_sum", "reduce_sum"}, "sum over the last dim", "ROWSxCOLS... (last dim reduced; a 1-D shape gives one scalar)", "N",
        "(N + rows) x width", "one add per element into a zero-initialized accumulator; one output per row"},
       rowwise(1, 0, 1, 0, 1)},
      {{"mean", {}, "mean over the last dim", "ROWSxCOLS... (last dim reduced; a 1-D shape gives one scalar)",
        "N + rows", "(N + rows) x width", "as sum, plus one division per row (counted as one FLOP)"},
       rowwise(1, 1, 1, 0, 1)},
      {{"max", {"amax", "reduce_max"}, "max over the last dim (values only)", "ROWSxCOLS... (last dim reduced)",
        "N", "(N + rows) x width", "one compare per element; one output per row"},
       rowwise(1, 0, 1, 0, 1)},
      {{"min", {"amin", "reduce_min"}, "min over the last dim (values only)", "ROWSxCOLS... (last dim reduced)",
        "N", "(N + rows) x width", "one compare per element; one output per row"},
       rowwise(1, 0, 1, 0, 1)},
      {{"prod", {"reduce_prod"}, "product over the last dim", "ROWSxCOLS... (last dim reduced)", "N",
        "(N + rows) x width", "one multiply per element into a one-initialized accumulator; one output per row"},
       rowwise(1, 0, 1, 0, 1)},
      {{"argmax", {}, "index of the max over the last dim", "ROWSxCOLS... (last dim reduced)", "N",
        "N x width + rows x 8", "one compare per element; int64 indices (8 bytes, PyTorch's type), one per row"},
       index_reduce},
      {{"argmin", {}, "index of the min over the last dim", "ROWSxCOLS... (last dim reduced)", "N",
        "N x width + rows x 8", "one compare per element; int64 indices (8 bytes, PyTorch's type), one per row"},
       index_reduce},
      {{"cumsum", {}, "inclusive prefix sum over the last dim", "ROWSxCOLS... (last dim scanned)", "N",
        "2 x N x width", "one add per element into a zero-initialized running sum (a work-efficient scan); every "
        "prefix is written"},
       rowwise(1, 0, 2, 0, 0)},
      {{"cumprod", {}, "inclusive prefix product over the last dim", "ROWSxCOLS... (last dim scanned)", "N",
        "2 x N x width", "one multiply per element into a one-initialized running product (a work-efficient "
        "scan); every prefix is written"},
       rowwise(1, 0, 2, 0, 0)},
      {{"cross_entropy", {}, "mean cross-entropy loss over class logits",
        "ROWSxCLASSES (classes = last dim)", "4 x N + 4 x rows + 1",
        "N x width + rows x 8 + width",
        "per logit: max, subtract max, exp, sum = 4; per row: log, + max, - target logit, add to the loss = 4; "
        "one final division by rows; targets are int64 class indices (8 bytes, PyTorch's type); the loss is "
        "one element of the dtype (reduction='mean'); no class weights, label smoothing or ignore_index"},
       cross_entropy},
      {{"mse_loss", {"mse"}, "mean((p - t)^2)", "any dims (N = product; p and t both full shape)", "3 x N + 1",
        "(2 x N + 1) x width", "per element: subtract, square, sum = 3; one final division by N; the loss is one "
        "element of the dtype (reduction='mean')"},
       loss(3)},
      {{"huber_loss", {"smooth_l1_loss", "smooth_l1"}, "mean smooth L1 / Huber loss with beta = delta = 1",
        "any dims (N = product; p and t both full shape)", "7 x N + 1", "(2 x N + 1) x width",
        "per element: d = p - t, |d|, compare with beta, d * d, * 0.5 / beta, |d| - 0.5 beta, sum = 7 (both "
        "branches counted: a branch-free kernel computes both); one final division by N; scalar loss"},
       loss(7)},
      {{"kl_div", {"kl_div_loss"}, "F.kl_div(log_p, t, reduction='batchmean') = sum t (log t - log_p) / batch",
        "BATCHx... (N = product; batch = dim 0)", "4 x N + 1", "(2 x N + 1) x width",
        "per element: log t, - log_p, * t, sum = 4; one final division by the batch; the input is already "
        "log-probabilities (a kernel that also takes the log of p does one more FLOP per element); scalar loss"},
       loss(4)},
      {{"hinge_loss", {"hinge"}, "mean(max(1 - p * t, 0))", "any dims (N = product; p and t both full shape)",
        "4 x N + 1", "(2 x N + 1) x width",
        "per element: multiply, 1 -, max with 0, sum = 4; one final division by N; scalar loss"},
       loss(4)},
      {{"cosine_similarity_loss", {"cosine_loss"},
        "mean(1 - cosine_similarity(p, t)) over rows; similarity along the last dim (eps 1e-8)",
        "ROWSxCOLS... (similarity along the last dim; p and t both full shape)", "6 x N + 6 x rows + 1",
        "(2 x N + 1) x width",
        "per element: p * t, sum, p * p, sum, t * t, sum = 6; per row: multiply the squared norms, max with "
        "eps^2, sqrt, divide, 1 -, add to the loss = 6; one final division by rows; scalar loss"},
       row_loss(2, 6, 6)},
      {{"triplet_margin_loss", {"triplet_loss"},
        "mean(max(||a - p + eps||_2 - ||a - n + eps||_2 + margin, 0)) over rows (torch's defaults: p = 2, "
        "eps 1e-6, no swap)",
        "ROWSxCOLS... (distances along the last dim; anchor, positive and negative all full shape)",
        "8 x N + 6 x rows + 1", "(3 x N + 1) x width",
        "per element, for each of the two distances: subtract, + eps, square, sum = 4, so 8; per row: two sqrt, "
        "subtract, + margin, max with 0, add to the loss = 6; one final division by rows; scalar loss"},
       row_loss(3, 8, 6)},
      {{"max_pool1d", {}, "max over each 1-D window of every N x C plane (values only)",
        "NxCxLxOLxK (input sizes, output sizes, window; stride, padding and dilation are "
        "in the output sizes)", "K x outputs", "(inputs + outputs) x width",
        "K = the window's elements; one compare per window element (positions in the padding included: a kernel "
        "that skips them does fewer); each input read once though windows overlap, each output written once"},
       pool(1, 1, 0)},
      {{"max_pool2d", {}, "max over each 2-D window of every N x C plane (values only)",
        "NxCxHxWxOHxOWxKHxKW (input sizes, output sizes, window; stride, padding and dilation are "
        "in the output sizes)", "K x outputs", "(inputs + outputs) x width",
        "K = the window's elements; one compare per window element (positions in the padding included: a kernel "
        "that skips them does fewer); each input read once though windows overlap, each output written once"},
       pool(2, 1, 0)},
      {{"max_pool3d", {}, "max over each 3-D window of every N x C plane (values only)",
        "NxCxDxHxWxODxOHxOWxKDxKHxKW (input sizes, output sizes, window; stride, padding and dilation are "
        "in the output sizes)", "K x outputs", "(inputs + outputs) x width",
        "K = the window's elements; one compare per window element (positions in the padding included: a kernel "
        "that skips them does fewer); each input read once though windows overlap, each output written once"},
       pool(3, 1, 0)},
      {{"avg_pool1d", {}, "mean over each 1-D window of every N x C plane",
        "NxCxLxOLxK (input sizes, output sizes, window; stride, padding and dilation are "
        "in the output sizes)", "(K + 1) x outputs", "(inputs + outputs) x width",
        "K = the window's elements; one add per window element into a zero-initialized sum (padding zeros "
        "included) and one division per output; each input read once though windows overlap, each output "
        "written once"},
       pool(1, 1, 1)},
      {{"avg_pool2d", {}, "mean over each 2-D window of every N x C plane",
        "NxCxHxWxOHxOWxKHxKW (input sizes, output sizes, window; stride, padding and dilation are "
        "in the output sizes)", "(K + 1) x outputs", "(inputs + outputs) x width",
        "K = the window's elements; one add per window element into a zero-initialized sum (padding zeros "
        "included) and one division per output; each input read once though windows overlap, each output "
        "written once"},
       pool(2, 1, 1)},
      {{"avg_pool3d", {}, "mean over each 3-D window of every N x C plane",
        "NxCxDxHxWxODxOHxOWxKDxKHxKW (input sizes, output sizes, window; stride, padding and dilation are "
        "in the output sizes)", "(K + 1) x outputs", "(inputs + outputs) x width",
        "K = the window's elements; one add per window element into a zero-initialized sum (padding zeros "
        "included) and one division per output; each input read once though windows overlap, each output "
        "written once"},
       pool(3, 1, 1)},
      {{"conv1d", {}, "1-D convolution (cross-correlation, as torch), no bias",
        "NxCxLxKxOLxRxG (C input and K output channels, input sizes, output sizes, window, "
        "groups; stride, padding and dilation are in the sizes)",
        "2 x outputs x C / G x taps", "(inputs + K x C / G x taps + outputs) x width",
        "one multiply and one add per output element, input channel of its group and window tap (taps "
        "in the padding included); weights read once, no bias; the tensor-core peak (an implicit GEMM)",
        true},
       conv(1, false)},
      {{"conv2d", {}, "2-D convolution (cross-correlation, as torch), no bias",
        "NxCxHxWxKxOHxOWxRxSxG (C input and K output channels, input sizes, output sizes, window, "
        "groups; stride, padding and dilation are in the sizes)",
        "2 x outputs x C / G x taps", "(inputs + K x C / G x taps + outputs) x width",
        "one multiply and one add per output element, input channel of its group and window tap (taps "
        "in the padding included); weights read once, no bias; the tensor-core peak (an implicit GEMM)",
        true},
       conv(2, false)},
      {{"conv3d", {}, "3-D convolution (cross-correlation, as torch), no bias",
        "NxCxDxHxWxKxODxOHxOWxTxRxSxG (C input and K output channels, input sizes, output sizes, window, "
        "groups; stride, padding and dilation are in the sizes)",
        "2 x outputs x C / G x taps", "(inputs + K x C / G x taps + outputs) x width",
        "one multiply and one add per output element, input channel of its group and window tap (taps "
        "in the padding included); weights read once, no bias; the tensor-core peak (an implicit GEMM)",
        true},
       conv(3, false)},
      {{"conv_transpose1d", {}, "transposed 1-D convolution (fractionally strided), no bias",
        "NxCxLxKxOLxRxG (C input and K output channels, input sizes, output sizes, window, "
        "groups; stride, padding and dilation are in the sizes)",
        "2 x inputs x K / G x taps", "(inputs + K x C / G x taps + outputs) x width",
        "every input element times every weight of its group's K / G output channels over the window (a "
        "scatter; products the padding crops are counted); weights read once, no bias; the tensor-core peak "
        "(an implicit GEMM)",
        true},
       conv(1, true)},
      {{"conv_transpose2d", {}, "transposed 2-D convolution (fractionally strided), no bias",
        "NxCxHxWxKxOHxOWxRxSxG (C input and K output channels, input sizes, output sizes, window, "
        "groups; stride, padding and dilation are in the sizes)",
        "2 x inputs x K / G x taps", "(inputs + K x C / G x taps + outputs) x width",
        "every input element times every weight of its group's K / G output channels over the window (a "
        "scatter; products the padding crops are counted); weights read once, no bias; the tensor-core peak "
        "(an implicit GEMM)",
        true},
       conv(2, true)},
      {{"conv_transpose3d", {}, "transposed 3-D convolution (fractionally strided), no bias",
        "NxCxDxHxWxKxODxOHxOWxTxRxSxG (C input and K output channels, input sizes, output sizes, window, "
        "groups; stride, padding and dilation are in the sizes)",
        "2 x inputs x K / G x taps", "(inputs + K x C / G x taps + outputs) x width",
        "every input element times every weight of its group's K / G output channels over the window (a "
        "scatter; products the padding crops are counted); weights read once, no bias; the tensor-core peak "
        "(an implicit GEMM)",
        true},
       conv(3, true)},
      {{"matmul", {"gemm", "mm"}, "C[M,N] = A[M,K] x B[K,N]", "MxNxK, or MxN meaning K = N",
        "2 x M x N x K", "(M x K + K x N + M x N) x width",
        "one multiply and one add per multiply-accumulate; A and B read once (perfect on-chip reuse), C "
        "written once in the dtype; no bias, no alpha/beta, C is not read",
        true},
       [](const Dims& d, int w) {
         if (d.size() != 2 && d.size() != 3) {
           throw Error("matmul needs a shape MxNxK (or MxN meaning K = N)", ExitCode::usage);
         }
         return gemm(d, w, false);
       }},
      {{"bmm", {"batched_matmul"}, "batched C[b] = A[b] x B[b]", "BxMxNxK, or BxMxN meaning K = N",
        "2 x B x M x N x K", "B x (M x K + K x N + M x N) x width", "as matmul, per batch entry", true},
       [](const Dims& d, int w) {
         if (d.size() != 3 && d.size() != 4) {
           throw Error("bmm needs a shape BxMxNxK (or BxMxN meaning K = N)", ExitCode::usage);
         }
         return gemm(d, w, true);
       }},
      {{"matvec", {"gemv", "mv"}, "y[M] = A[M,K] x[K]", "MxK", "2 x M x K", "(M x K + K + M) x width",
        "one multiply and one add per multiply-accumulate; A and x read once, y written once; counted against "
        "the vector peak (one column gives tensor cores nothing to reuse; it is memory-bound)"},
       matvec},
      {{"diag_matmul", {}, "C[N,M] = diag(a[N]) x B[N,M]: row i of B scaled by a[i]", "NxM", "N x M",
        "(N + 2 x N x M) x width",
        "one multiply per output element (the zeros of diag(a) are not multiplied); a and B read once, C written "
        "once; the N x N diagonal matrix never reaches memory"},
       diag_matmul},
      {{"attention", {"sdpa"}, "softmax(Q K^T / sqrt(D)) V, fused, not causal",
        "BxHxSxD (batch, heads, sequence, head dim); HxSxD means B = 1; SxD means B = H = 1",
        "4 x B x H x S^2 x D + 6 x B x H x S^2", "4 x B x H x S x D x width",
        "Q K^T and P V: 2 x S^2 x D each per head; per score: scale 1 + softmax 5 (as softmax); no mask; "
        "Q, K, V read once and O written once; the S x S scores never reach memory (flash-style) and no "
        "logsumexp is written",
        true},
       [](const Dims& d, int w) {
         if (d.size() < 2 || d.size() > 4) {
           throw Error("attention needs a shape BxHxSxD, HxSxD or SxD", ExitCode::usage);
         }
         return attention(d, w);
       }},
  };
  return table;
}

}  // namespace

const std::vector<DType>& dtypes() {
  static const std::vector<DType> table = {
      {"fp64", 8, "fp64", "fp64_tensor", "FP64 matmul-like ops use the FP64 tensor-core peak"},
      {"fp32", 4, "fp32", "fp32", "FP32 matmul runs on CUDA cores (choose tf32 for TF32 tensor cores)"},
      {"tf32", 4, "fp32", "tf32_tensor", "TF32 is a tensor-core format stored as 32-bit floats"},
      {"fp16", 2, "fp32", "fp16_tensor", "elementwise math on fp16 data is counted against the FP32 peak"},
      {"bf16", 2, "fp32", "bf16_tensor", "elementwise math on bf16 data is counted against the FP32 peak"},
      {"fp8", 1, "fp32", "fp8_tensor", "elementwise math on fp8 data is counted against the FP32 peak"},
      {"int8", 1, "fp32", "int8_tensor", "elementwise math on int8 data is counted against the FP32 peak"},
  };
  return table;
}

const DType& find_dtype(const std::string& name) {
  std::string known;
  for (const DType& d : dtypes()) {
    if (d.name == name) return d;
    known += (known.empty() ? "" : ", ") + d.name;
  }
  throw Error("unknown dtype '" + name + "'; use one of: " + known, ExitCode::usage);
}

const std::vector<OpInfo>& ops() {
  static const std::vector<OpInfo> infos = [] {
    std::vector<OpInfo> out;
    for (const Entry& e : entries()) out.push_back(e.info);
    return out;
  }();
  return infos;
}

static const Entry& find_entry(const std::string& name) {
  std::string known;
  for (const Entry& e : entries()) {
    if (e.info.name == name) return e;
    for (const std::string& a : e.info.aliases) {
      if (a == name) return e;
    }
    known += (known.empty() ? "" : ", ") + e.info.name;
  }
  throw Error("unknown op '" + name + "'; use one of: " + known +
                  " (or describe the kernel with --flops EXPR --bytes EXPR)",
              ExitCode::usage);
}

const OpInfo* lookup_op(const std::string& name) {
  for (const OpInfo& info : ops()) {
    if (info.name == name) return &info;
    for (const std::string& a : info.aliases) {
      if (a == name) return &info;
    }
  }
  return nullptr;
}

const OpInfo& find_op(const std::string& name) {
  const Entry& e = find_entry(name);
  for (const OpInfo& info : ops()) {
    if (info.name == e.info.name) return info;
  }
  throw Error("op table out of sync", ExitCode::internal);
}

Work op_work(const OpInfo& op, const std::vector<long long>& shape, const DType& dtype) {
  if (shape.empty()) {
    throw Error(op.name + " needs a shape (" + op.shape + ")", ExitCode::usage);
  }
  for (long long v : shape) {
    if (v <= 0) throw Error("shape " + core::shape_to_string(shape) + " has a dimension <= 0", ExitCode::usage);
  }
  return find_entry(op.name).work(shape, dtype.bytes);
}

const std::vector<std::string>& counting_conventions() {
  static const std::vector<std::string> rules = {
      "FLOPs: every add, subtract, multiply, compare/max and division counts as one FLOP; each "
      "transcendental (exp, log, erf, rsqrt) counts as one FLOP. A multiply-accumulate is two FLOPs.",
      "Bytes: the minimum any kernel must move: each input read once and each output written once, at the "
      "dtype's width; intermediates are assumed to stay on chip. Caches can make a kernel move less "
      "(a warm L2 is not HBM traffic); a kernel that re-reads data moves more.",
      "Shapes: a row-wise op (softmax, norms, reductions, scans, cross_entropy) works on the last dimension and "
      "treats all leading dimensions as rows. To count an op over another axis, give the shape with that axis "
      "moved last: the counts depend only on the element count and the reduced length (sum over dim 1 of "
      "16x256x512 is --shape 16x512x256).",
      "Compute peak: matmul-like ops (matmul, bmm, attention) use the dtype's tensor-core peak; all other "
      "ops use the dtype's vector peak (FP32 CUDA cores for fp32 and narrower types, FP64 for fp64).",
  };
  return rules;
}

}  // namespace kgo::roofline
