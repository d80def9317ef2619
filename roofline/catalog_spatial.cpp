// Pooling, convolution, matmul variants and attention: work set by window, kernel or matrix sizes. Part of the op catalog (catalog.cpp).
#include <fmt/format.h>

#include "core/error.hpp"
#include "roofline/catalog_entries.hpp"
#include "roofline/format.hpp"

namespace kgo::roofline::detail {

using namespace work;

std::vector<Entry> spatial_entries() {
  return {
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
}

}  // namespace kgo::roofline::detail
