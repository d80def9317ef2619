#include "roofline/catalog.hpp"

#include <functional>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/workspace.hpp"
#include "roofline/format.hpp"
#include "roofline/catalog_entries.hpp"
#include "roofline/op_work.hpp"

namespace kgo::roofline {

namespace {

using detail::Entry;
using namespace work;

const std::vector<Entry>& entries() {
  static const std::vector<Entry> table = [] {
    std::vector<Entry> all;
    for (auto part : {detail::pointwise_entries, detail::rows_entries, detail::spatial_entries}) {
      auto more = part();
      all.insert(all.end(), more.begin(), more.end());
    }
    return all;
  }();
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
