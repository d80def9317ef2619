// Elementwise ops and activations: one output element per input element. Part of the op catalog (catalog.cpp).
#include <fmt/format.h>

#include "core/error.hpp"
#include "roofline/catalog_entries.hpp"
#include "roofline/format.hpp"

namespace kgo::roofline::detail {

using namespace work;

std::vector<Entry> pointwise_entries() {
  return {
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
  };
}

}  // namespace kgo::roofline::detail
