#include "roofline/op_work.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "roofline/format.hpp"

namespace kgo::roofline::work {

std::string dims_product(const Dims& d) {
  std::string out;
  for (long long v : d) out += (out.empty() ? "" : " x ") + fmt_count(static_cast<double>(v));
  return out;
}

double product(const Dims& d) {
  double n = 1;
  for (long long v : d) n *= static_cast<double>(v);
  return n;
}

// Elementwise: N elements, `flops_per` FLOPs each, `tensors` tensors of N elements moved.
WorkFn elementwise(int flops_per, int tensors) {
  return [=](const Dims& d, int w) {
    double n = product(d);
    Work out{flops_per * n, tensors * n * w, {}};
    out.steps.push_back(fmt::format("N = {} = {} elements", dims_product(d), fmt_count(n)));
    out.steps.push_back(fmt::format("FLOPs = {} x N = {}", flops_per, fmt_count(out.flops)));
    out.steps.push_back(fmt::format("bytes = {} x N x {} B = {}", tensors, w, fmt_count(out.bytes)));
    return out;
  };
}

Rows rows_of(const Dims& d, Work& w) {
  double cols = static_cast<double>(d.back());
  double n = product(d);
  w.steps.push_back(fmt::format("N = {} = {} elements; cols = {} (last dim), rows = N / cols = {}",
                                dims_product(d), fmt_count(n), fmt_count(cols), fmt_count(n / cols)));
  return {n / cols, cols, n};
}

// Row-wise op: per-element and per-row FLOPs, bytes = (x_tensors*N + per_col*cols + per_row*rows)*w.
WorkFn rowwise(int per_elem, int per_row, int x_tensors, int per_col, int per_row_out) {
  return [=](const Dims& d, int w) {
    Work out;
    Rows r = rows_of(d, out);
    out.flops = per_elem * r.n + per_row * r.rows;
    out.bytes = (x_tensors * r.n + per_col * r.cols + per_row_out * r.rows) * w;
    out.steps.push_back(per_row == 0 ? fmt::format("FLOPs = {} x N = {}", per_elem, fmt_count(out.flops))
                                     : fmt::format("FLOPs = {} x N + {} x rows = {}", per_elem, per_row,
                                                   fmt_count(out.flops)));
    std::string terms = fmt::format("{} x N", x_tensors);
    if (per_col) terms += fmt::format(" + {} x cols", per_col);
    if (per_row_out) terms += fmt::format(" + {} x rows", per_row_out);
    out.steps.push_back(fmt::format("bytes = ({}) x {} B = {}", terms, w, fmt_count(out.bytes)));
    return out;
  };
}

Work cross_entropy(const Dims& d, int w) {
  Work out;
  Rows r = rows_of(d, out);
  out.flops = 4 * r.n + 4 * r.rows + 1;
  out.bytes = r.n * w + r.rows * 8 + w;
  out.steps.push_back(fmt::format("FLOPs = 4 x N + 4 x rows + 1 = {}", fmt_count(out.flops)));
  out.steps.push_back(fmt::format("bytes = N x {} B (logits) + rows x 8 B (int64 targets) + {} B (loss) = {}",
                                  w, w, fmt_count(out.bytes)));
  return out;
}

Work gemm(const Dims& d, int w, bool batched) {
  size_t base = batched ? 1 : 0;
  double b = batched ? static_cast<double>(d[0]) : 1;
  double m = static_cast<double>(d[base]);
  double n = static_cast<double>(d[base + 1]);
  double k = d.size() == base + 3 ? static_cast<double>(d[base + 2]) : n;
  Work out;
  std::string bs = batched ? fmt::format("B = {}, ", fmt_count(b)) : "";
  out.steps.push_back(fmt::format("{}M = {}, N = {}, K = {}{}", bs, fmt_count(m), fmt_count(n), fmt_count(k),
                                  d.size() == base + 2 ? " (K = N: two dims given)" : ""));
  out.flops = 2 * b * m * n * k;
  out.bytes = b * (m * k + k * n + m * n) * w;
  std::string bx = batched ? "B x " : "";
  out.steps.push_back(fmt::format("FLOPs = 2 x {}M x N x K = {}", bx, fmt_count(out.flops)));
  out.steps.push_back(fmt::format("bytes = {}(M x K + K x N + M x N) x {} B = {}", bx, w, fmt_count(out.bytes)));
  return out;
}

Work attention(const Dims& d, int w) {
  double b = d.size() == 4 ? static_cast<double>(d[0]) : 1;
  double h = d.size() >= 3 ? static_cast<double>(d[d.size() - 3]) : 1;
  double s = static_cast<double>(d[d.size() - 2]);
  double dh = static_cast<double>(d.back());
  Work out;
  out.steps.push_back(fmt::format("B = {}, H = {}, S = {}, D = {}", fmt_count(b), fmt_count(h), fmt_count(s),
                                  fmt_count(dh)));
  out.flops = 4 * b * h * s * s * dh + 6 * b * h * s * s;
  out.bytes = 4 * b * h * s * dh * w;
  out.steps.push_back(fmt::format("FLOPs = 4 x B x H x S x S x D + 6 x B x H x S x S = {}", fmt_count(out.flops)));
  out.steps.push_back(fmt::format("bytes = 4 x B x H x S x D x {} B = {}", w, fmt_count(out.bytes)));
  return out;
}

// Index reduction (argmax/argmin): one compare per element, int64 indices (8 bytes, PyTorch's type) per row.
Work index_reduce(const Dims& d, int w) {
  Work out;
  Rows r = rows_of(d, out);
  out.flops = r.n;
  out.bytes = r.n * w + r.rows * 8;
  out.steps.push_back(fmt::format("FLOPs = N = {}", fmt_count(out.flops)));
  out.steps.push_back(fmt::format("bytes = N x {} B + rows x 8 B (int64 indices) = {}", w, fmt_count(out.bytes)));
  return out;
}

// Loss over two full-shape inputs reduced to one scalar: per-element FLOPs plus one final division.
WorkFn loss(int per_elem) {
  return [=](const Dims& d, int w) {
    double n = product(d);
    Work out{per_elem * n + 1, 2 * n * w + w, {}};
    out.steps.push_back(fmt::format("N = {} = {} elements", dims_product(d), fmt_count(n)));
    out.steps.push_back(fmt::format("FLOPs = {} x N + 1 = {}", per_elem, fmt_count(out.flops)));
    out.steps.push_back(fmt::format("bytes = (2 x N + 1) x {} B = {}", w, fmt_count(out.bytes)));
    return out;
  };
}

// Normalization over groups of a tensor whose dim 1 is channels: `rows` normalized groups of N / rows
// elements; per-element and per-group FLOPs; x read, y written, `per_channel` vectors of C elements read.
Work grouped_norm(const Dims& d, int w, double rows, double channels, int per_elem, int per_row, int per_channel) {
  Work out;
  double n = product(d);
  out.steps.push_back(fmt::format("N = {} = {} elements; groups normalized = {} of {} elements; channels = {}",
                                  dims_product(d), fmt_count(n), fmt_count(rows), fmt_count(n / rows),
                                  fmt_count(channels)));
  out.flops = per_elem * n + per_row * rows;
  out.bytes = (2 * n + per_channel * channels) * w;
  out.steps.push_back(fmt::format("FLOPs = {} x N + {} x groups = {}", per_elem, per_row, fmt_count(out.flops)));
  out.steps.push_back(per_channel ? fmt::format("bytes = (2 x N + {} x C) x {} B = {}", per_channel, w,
                                                fmt_count(out.bytes))
                                  : fmt::format("bytes = 2 x N x {} B = {}", w, fmt_count(out.bytes)));
  return out;
}

// Pooling over d spatial dims: the shape is NxC, the d input sizes, the d output sizes and the d window sizes,
// so any stride, padding, dilation or ceil mode is counted by the sizes it produces. Every output reads a window
// of K elements (`per_window` FLOPs each, window positions in the padding included) plus `per_out` FLOPs.
WorkFn pool(size_t d, int per_window, int per_out) {
  return [=](const Dims& s, int w) {
    if (s.size() != 2 + 3 * d) {
      throw Error(fmt::format("a {}-D pool needs a shape NxC, then {} input sizes, {} output sizes and {} window "
                              "sizes ({} dims)", d, d, d, d, 2 + 3 * d),
                  ExitCode::usage);
    }
    double planes = static_cast<double>(s[0]) * static_cast<double>(s[1]);
    Dims in(s.begin() + 2, s.begin() + 2 + d), out_dims(s.begin() + 2 + d, s.begin() + 2 + 2 * d);
    Dims window(s.begin() + 2 + 2 * d, s.end());
    double n_in = planes * product(in), n_out = planes * product(out_dims), k = product(window);
    Work out;
    out.steps.push_back(fmt::format("planes = N x C = {}; input {} -> output {}, window {} = {} elements",
                                    fmt_count(planes), dims_product(in), dims_product(out_dims),
                                    dims_product(window), fmt_count(k)));
    out.flops = (per_window * k + per_out) * n_out;
    out.bytes = (n_in + n_out) * w;
    out.steps.push_back(per_out ? fmt::format("FLOPs = ({} x K + {}) x outputs = ({} x {} + {}) x {} = {}",
                                              per_window, per_out, per_window, fmt_count(k), per_out,
                                              fmt_count(n_out), fmt_count(out.flops))
                                : fmt::format("FLOPs = {} x K x outputs = {} x {} x {} = {}", per_window,
                                              per_window, fmt_count(k), fmt_count(n_out), fmt_count(out.flops)));
    out.steps.push_back(fmt::format("bytes = (inputs {} + outputs {}) x {} B = {}", fmt_count(n_in),
                                    fmt_count(n_out), w, fmt_count(out.bytes)));
    return out;
  };
}

// A loss over `inputs` full-shape tensors compared row by row along the last dim, reduced to one mean scalar.
WorkFn row_loss(int inputs, int per_elem, int per_row) {
  return [=](const Dims& d, int w) {
    Work out;
    Rows r = rows_of(d, out);
    out.flops = per_elem * r.n + per_row * r.rows + 1;
    out.bytes = (inputs * r.n + 1) * w;
    out.steps.push_back(fmt::format("FLOPs = {} x N + {} x rows + 1 = {}", per_elem, per_row, fmt_count(out.flops)));
    out.steps.push_back(fmt::format("bytes = ({} x N + 1) x {} B = {}", inputs, w, fmt_count(out.bytes)));
    return out;
  };
}

// Convolution over d spatial dims without bias: the shape is N, C (input channels), the d input sizes, K (output
// channels), the d output sizes, the d window sizes and G (groups). A convolution's output gathers C / G x window
// products; a transposed one's input scatters K / G x window products (all of them, those the padding crops
// included). Input, weights (K x C / G x window) and output each cross memory once.
WorkFn conv(size_t d, bool transposed) {
  return [=](const Dims& s, int w) {
    if (s.size() != 4 + 3 * d) {
      throw Error(fmt::format("a {}-D convolution needs a shape N x C, {} input sizes, K, {} output sizes, {} window "
                              "sizes and G ({} dims)", d, d, d, d, 4 + 3 * d),
                  ExitCode::usage);
    }
    double n = static_cast<double>(s[0]), c = static_cast<double>(s[1]), k = static_cast<double>(s[2 + d]);
    double g = static_cast<double>(s.back());
    if (s[1] % s.back() != 0 || s[2 + d] % s.back() != 0) {
      throw Error(fmt::format("groups G = {} must divide both C = {} and K = {}", s.back(), s[1], s[2 + d]),
                  ExitCode::usage);
    }
    Dims in(s.begin() + 2, s.begin() + 2 + d), out_dims(s.begin() + 3 + d, s.begin() + 3 + 2 * d);
    Dims window(s.begin() + 3 + 2 * d, s.end() - 1);
    double n_in = n * c * product(in), n_out = n * k * product(out_dims), taps = product(window);
    double weights = k * (c / g) * taps;
    Work out;
    out.steps.push_back(fmt::format("N = {}, C = {}, K = {}, G = {}; input {} -> output {}, window {} = {} taps",
                                    fmt_count(n), fmt_count(c), fmt_count(k), fmt_count(g), dims_product(in),
                                    dims_product(out_dims), dims_product(window), fmt_count(taps)));
    out.flops = transposed ? 2 * n_in * (k / g) * taps : 2 * n_out * (c / g) * taps;
    out.steps.push_back(transposed ? fmt::format("FLOPs = 2 x inputs x K / G x taps = 2 x {} x {} x {} = {}",
                                                 fmt_count(n_in), fmt_count(k / g), fmt_count(taps),
                                                 fmt_count(out.flops))
                                   : fmt::format("FLOPs = 2 x outputs x C / G x taps = 2 x {} x {} x {} = {}",
                                                 fmt_count(n_out), fmt_count(c / g), fmt_count(taps),
                                                 fmt_count(out.flops)));
    out.bytes = (n_in + weights + n_out) * w;
    out.steps.push_back(fmt::format("bytes = (inputs {} + weights K x C / G x taps {} + outputs {}) x {} B = {}",
                                    fmt_count(n_in), fmt_count(weights), fmt_count(n_out), w, fmt_count(out.bytes)));
    return out;
  };
}

void need_rank(const char* op, const Dims& d, size_t lo, size_t hi, const char* shape) {
  if (d.size() < lo || d.size() > hi) throw Error(fmt::format("{} needs a shape {}", op, shape), ExitCode::usage);
}

Work batch_norm(const Dims& d, int w) {
  need_rank("batch_norm", d, 2, 8, "NxC or NxCxS... (channels are dim 1)");
  double c = static_cast<double>(d[1]);
  return grouped_norm(d, w, c, c, 4, 2, 4);
}

Work group_norm(const Dims& d, int w) {
  need_rank("group_norm", d, 3, 8, "NxGxCPGxS... (the input [N, C, S...] viewed with C = G x CPG)");
  return grouped_norm(d, w, static_cast<double>(d[0] * d[1]), static_cast<double>(d[1] * d[2]), 7, 4, 2);
}

Work instance_norm(const Dims& d, int w) {
  need_rank("instance_norm", d, 3, 8, "NxCxS... (each of the N x C channels normalized over S...)");
  return grouped_norm(d, w, static_cast<double>(d[0] * d[1]), static_cast<double>(d[1]), 5, 4, 0);
}

Work matvec(const Dims& d, int w) {
  need_rank("matvec", d, 2, 2, "MxK (A is M x K, x has K elements)");
  double m = static_cast<double>(d[0]), k = static_cast<double>(d[1]);
  Work out{2 * m * k, (m * k + k + m) * w, {}};
  out.steps.push_back(fmt::format("M = {}, K = {}", fmt_count(m), fmt_count(k)));
  out.steps.push_back(fmt::format("FLOPs = 2 x M x K = {}", fmt_count(out.flops)));
  out.steps.push_back(fmt::format("bytes = (M x K + K + M) x {} B = {}", w, fmt_count(out.bytes)));
  return out;
}

Work diag_matmul(const Dims& d, int w) {
  need_rank("diag_matmul", d, 2, 2, "NxM (a has N elements, B is N x M)");
  double n = static_cast<double>(d[0]), m = static_cast<double>(d[1]);
  Work out{n * m, (n + 2 * n * m) * w, {}};
  out.steps.push_back(fmt::format("N = {}, M = {}", fmt_count(n), fmt_count(m)));
  out.steps.push_back(fmt::format("FLOPs = N x M = {}", fmt_count(out.flops)));
  out.steps.push_back(fmt::format("bytes = (N + 2 x N x M) x {} B = {}", w, fmt_count(out.bytes)));
  return out;
}

}  // namespace kgo::roofline::work
