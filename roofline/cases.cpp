#include "roofline/cases.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/harness_protocol.hpp"
#include "core/workspace.hpp"
#include "roofline/format.hpp"

namespace kgo::roofline {

std::vector<std::vector<long long>> default_shapes() {
  std::vector<std::vector<long long>> shapes;
  for (const auto& s : protocol::command_default::bench::shapes) shapes.emplace_back(s.begin(), s.end());
  return shapes;
}

const std::vector<std::string>& compute_metrics() {
  static const std::vector<std::string> m = {"fp64",        "fp64_tensor", "fp32",       "tf32_tensor",
                                             "fp16_tensor", "bf16_tensor", "fp8_tensor", "int8_tensor"};
  return m;
}

namespace {

Variables shape_variables(const std::vector<long long>& shape) {
  Variables v;
  double numel = 1;
  static const char* names[] = {"M", "N", "K"};
  for (size_t i = 0; i < shape.size(); ++i) {
    double d = static_cast<double>(shape[i]);
    v["d" + std::to_string(i)] = d;
    if (i < 3) v[names[i]] = d;
    numel *= d;
  }
  v["numel"] = numel;
  return v;
}

std::string vars_text(const Variables& vars) {
  std::string out;
  for (const auto& [name, value] : vars) out += (out.empty() ? "" : ", ") + name + " = " + fmt_count(value);
  return out;
}

Case custom_case(const CaseSet& set, const std::vector<long long>* shape) {
  Variables vars = shape ? shape_variables(*shape) : Variables{};
  for (const auto& [name, value] : set.vars) vars[name] = value;  // --var wins over shape names
  Case c;
  if (shape) {
    c.shape = *shape;
    c.label = core::shape_to_string(*shape);
  } else {
    c.label = set.vars.empty() ? "custom" : vars_text(set.vars);
  }
  c.work.flops = evaluate(set.flops_expr, vars);
  c.work.bytes = evaluate(set.bytes_expr, vars);
  if (!vars.empty()) c.work.steps.push_back("variables: " + vars_text(vars));
  c.work.steps.push_back(fmt::format("FLOPs = `{}` = {}", set.flops_expr, fmt_count(c.work.flops)));
  c.work.steps.push_back(fmt::format("bytes = `{}` = {}", set.bytes_expr, fmt_count(c.work.bytes)));
  if (c.work.flops < 0) throw Error("--flops evaluates to a negative count for " + c.label, ExitCode::expression_error);
  if (!(c.work.bytes > 0)) throw Error("--bytes must evaluate to more than 0 for " + c.label, ExitCode::expression_error);
  // No kernel launch moves or computes 1e24 of anything; such a count is a typo (2^1000, 1e30).
  constexpr double k_max_count = 1e24;
  for (auto [name, v] : {std::pair{"--flops", c.work.flops}, std::pair{"--bytes", c.work.bytes}}) {
    if (!std::isfinite(v) || v > k_max_count) {
      throw Error(fmt::format("{} evaluates to {} for {}, above the sane limit of 1e24 for one kernel; check the "
                              "expression", name, fmt_count(v), c.label), ExitCode::expression_error);
    }
  }
  if (c.work.bytes != std::floor(c.work.bytes) || c.work.flops != std::floor(c.work.flops)) {
    throw Error(fmt::format("--flops/--bytes must evaluate to whole counts for {} (got {} FLOPs, {} bytes); a "
                            "fraction means the expression is wrong", c.label, fmt_count(c.work.flops),
                            fmt_count(c.work.bytes)), ExitCode::expression_error);
  }
  return c;
}

}  // namespace

CaseSet build_cases(const CaseRequest& req) {
  bool custom = req.flops_expr || req.bytes_expr;
  if (custom && req.op) {
    throw Error("give either --op or --flops/--bytes, not both", ExitCode::usage);
  }
  if (custom && !(req.flops_expr && req.bytes_expr)) {
    throw Error("custom kernels need both --flops EXPR and --bytes EXPR", ExitCode::usage);
  }
  if (!custom && !req.op) {
    throw Error("name an op (--op softmax; see --explain for the catalog) or give --flops EXPR --bytes EXPR",
                ExitCode::usage);
  }
  if (!custom && !req.vars.empty()) {
    throw Error("--var only applies to --flops/--bytes expressions", ExitCode::usage);
  }
  CaseSet set;
  set.dtype = find_dtype(req.dtype);
  if (custom) {
    set.op = "custom";
    set.compute_metric = set.dtype.tensor_metric;
    set.flops_expr = *req.flops_expr;
    set.bytes_expr = *req.bytes_expr;
    for (const std::string& v : req.vars) {
      auto [name, value] = parse_assignment(v);
      set.vars[name] = value;
    }
    if (req.shapes.empty()) {
      set.cases.push_back(custom_case(set, nullptr));
    } else {
      for (const auto& shape : req.shapes) set.cases.push_back(custom_case(set, &shape));
    }
  } else {
    const OpInfo& op = find_op(*req.op);
    set.op = op.name;
    set.matmul_like = op.matmul_like;
    set.compute_metric = op.matmul_like ? set.dtype.tensor_metric : set.dtype.vector_metric;
    for (const auto& shape : req.shapes) {
      set.cases.push_back({core::shape_to_string(shape), shape, op_work(op, shape, set.dtype)});
    }
    if (set.cases.empty()) throw Error("no shapes to analyze; pass --shape", ExitCode::usage);
  }
  if (req.peak_metric) {
    const auto& known = compute_metrics();
    if (std::find(known.begin(), known.end(), *req.peak_metric) == known.end()) {
      std::string list;
      for (const auto& m : known) list += (list.empty() ? "" : ", ") + m;
      throw Error("--peak " + *req.peak_metric + " is not a compute metric; use one of: " + list, ExitCode::usage);
    }
    set.compute_metric = *req.peak_metric;
  }
  return set;
}

}  // namespace kgo::roofline
