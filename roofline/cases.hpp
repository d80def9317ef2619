#pragma once
// Turns `kgo roofline` options into cases: a catalog op on each shape, or custom --flops/--bytes
// expressions evaluated per shape (dims bound as d0, d1, ..., M, N, K and numel; --var wins).
#include <optional>
#include <string>
#include <vector>

#include "roofline/analysis.hpp"
#include "roofline/expr.hpp"

namespace kgo::roofline {

struct CaseRequest {
  std::optional<std::string> op;
  std::optional<std::string> flops_expr;
  std::optional<std::string> bytes_expr;
  std::vector<std::string> vars;                // "NAME=VALUE"
  std::vector<std::vector<long long>> shapes;   // may be empty for custom expressions
  std::string dtype = "fp32";
  std::optional<std::string> peak_metric;       // overrides the compute metric
};

struct CaseSet {
  std::string op;                 // catalog name or "custom"
  DType dtype;
  bool matmul_like = false;
  std::string compute_metric;     // canonical metric of the compute peak
  std::vector<Case> cases;
  std::string flops_expr, bytes_expr;  // custom only
  Variables vars;                      // from --var
};

// The seed's default shapes: the bench sizes of schemas/harness/request.schema.json (256x256, 1024x1024, 4096x4096).
std::vector<std::vector<long long>> default_shapes();

// Compute metrics a roofline may use as its peak (dense only).
const std::vector<std::string>& compute_metrics();

// Throws Error(usage) for contradictory options (op and expressions, one expression alone,
// unknown op/dtype/metric) and Error(expression_error) for bad expressions or --var.
CaseSet build_cases(const CaseRequest& req);

}  // namespace kgo::roofline
