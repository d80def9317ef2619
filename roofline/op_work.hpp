#pragma once
// The FLOP and byte formulas behind the op catalog (roofline/catalog.cpp): each builds a Work (counts plus
// the arithmetic shown to the user) from an op's shape and element width in bytes.
#include <functional>
#include <string>
#include <vector>

#include "roofline/catalog.hpp"

namespace kgo::roofline::work {

using Dims = std::vector<long long>;
using WorkFn = std::function<Work(const Dims&, int)>;

struct Rows {
  double rows, cols, n;
};

std::string dims_product(const Dims& d);
double product(const Dims& d);
WorkFn elementwise(int flops_per, int tensors);
Rows rows_of(const Dims& d, Work& w);
WorkFn rowwise(int per_elem, int per_row, int x_tensors, int per_col, int per_row_out);
Work cross_entropy(const Dims& d, int w);
Work gemm(const Dims& d, int w, bool batched);
Work attention(const Dims& d, int w);
Work index_reduce(const Dims& d, int w);
WorkFn loss(int per_elem);
Work grouped_norm(const Dims& d, int w, double rows, double channels, int per_elem, int per_row, int per_channel);
WorkFn pool(size_t d, int per_window, int per_out);
WorkFn row_loss(int inputs, int per_elem, int per_row);
WorkFn conv(size_t d, bool transposed);
void need_rank(const char* op, const Dims& d, size_t lo, size_t hi, const char* shape);
Work batch_norm(const Dims& d, int w);
Work group_norm(const Dims& d, int w);
Work instance_norm(const Dims& d, int w);
Work matvec(const Dims& d, int w);
Work diag_matmul(const Dims& d, int w);

}  // namespace kgo::roofline::work
