// Row-wise ops, norms, reductions and losses: a reduction or scan over the last dim (or all dims). Part of the op catalog (catalog.cpp).
#include <fmt/format.h>

#include "core/error.hpp"
#include "roofline/catalog_entries.hpp"
#include "roofline/format.hpp"

namespace kgo::roofline::detail {

using namespace work;

std::vector<Entry> rows_entries() {
  return {
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
  };
}

}  // namespace kgo::roofline::detail
