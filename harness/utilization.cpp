#include "harness/utilization.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/workspace.hpp"
#include "harness/fields.hpp"
#include "roofline/analysis.hpp"
#include "roofline/cases.hpp"
#include "roofline/catalog.hpp"
#include "roofline/run.hpp"
#include "specs/registry.hpp"

namespace kgo::harness {

namespace fs = std::filesystem;
using nlohmann::json;

json catalog_work(const std::optional<std::string>& op, const std::string& dtype,
                  const std::vector<std::vector<long long>>& shapes) {
  json work = json::array();
  if (!op) return work;
  try {
    const roofline::OpInfo& info = roofline::find_op(*op);
    const roofline::DType& dt = roofline::find_dtype(dtype);
    for (const auto& shape : shapes) {
      roofline::Work w = roofline::op_work(info, shape, dt);
      work.push_back({{"shape", shape}, {"bytes", w.bytes}, {"flops", w.flops}});
    }
  } catch (const Error&) {
    return json::array();  // not a catalog op or dtype: the harness counts itself
  }
  return work;
}

// The request's "ceilings": the larger of the measured and the datasheet HBM bandwidth (bytes_per_s) and the
// compute peak for the op and dtype (flops_per_s), the measured-else-cited bandwidth for the audit flag, each with
// its citation; flops_note says when no compute peak is registered. Null with no registered ceiling.
static json ceilings_for(const fs::path& workspace, const std::optional<std::string>& op, const std::string& dtype,
                         const std::vector<std::vector<long long>>& shapes) {
  // The bandwidth floor needs no op: every kernel reads its inputs and writes its outputs at least once, and the
  // harness counts those bytes itself where kgo's catalog does not know the op (a seed or published format).
  specs::Registry reg;
  try {
    reg = specs::load_registry(workspace);
  } catch (const Error&) {
    return nullptr;  // no readable registry: no floor (run_bench says so in a warning)
  }
  std::optional<std::string> compute_metric;
  if (op && !shapes.empty()) {
    try {
      roofline::CaseRequest cr;
      cr.op = op;
      cr.dtype = dtype;
      cr.shapes = {shapes.front()};
      compute_metric = roofline::build_cases(cr).compute_metric;
    } catch (const Error&) {
      compute_metric.reset();  // not a catalog op: the floor has no FLOPs term
    }
  }
  auto bw = roofline::highest_registered(reg, "hbm_bandwidth");
  auto audit_bw = roofline::registered(reg, "hbm_bandwidth");
  auto peak = compute_metric ? roofline::highest_registered(reg, *compute_metric) : std::nullopt;
  if (!bw && !peak) return nullptr;
  json c = json::object();
  if (bw) {
    c["bytes_per_s"] = bw->si_value;
    c["source"] = bw->cited();
    c["audit_bytes_per_s"] = audit_bw->si_value;
    c["audit_source"] = audit_bw->cited();
  }
  if (peak) {
    c["flops_per_s"] = peak->si_value;
    c["flops_source"] = peak->cited();
  } else if (compute_metric) {
    c["flops_note"] = fmt::format("no {} is registered for this workspace, so the floor has no FLOPs term; "
                                  "`kgo spec auto` registers it from the gpu-wiki",
                                  *compute_metric);
  } else {
    c["flops_note"] = "the op is not in kgo's catalog, so the floor is the bytes the harness counts (inputs and "
                      "outputs) over the registered bandwidth, with no FLOPs term";
  }
  return c;
}

// A size's shape as the catalog counts it: a KernelBench size (the problem's dims) maps to the op's shape the
// harness reported; any other shape is the catalog shape already.
static json catalog_shape(const json& result, const json& shape) {
  for (const auto& m : jobj(jobj(result, "roofline"), "shapes")) {
    if (m.value("shape", json()) == shape) return m.value("op_shape", shape);
  }
  return shape;
}

BenchReport run_workspace_bench(const fs::path& workspace, const Target& target, const BenchSettings& settings) {
  return run_bench(target, settings, catalog_work(target.op, target.dtype, target.shapes),
                   ceilings_for(workspace, target.op, target.dtype, target.shapes));
}

Utilization utilization_for(const fs::path& workspace, const BenchReport& r) {
  Utilization u;
  roofline::RooflineOptions o;
  json doc;
  if (auto text = core::try_read_file(workspace / "roofline.json")) {
    doc = json::parse(*text, nullptr, false);
    if (doc.is_discarded()) doc = json::object();
  }
  std::string op = jstr(doc, "op");
  const json& custom = jobj(doc, "custom");
  if (op == "custom" && !custom.empty()) {
    o.flops_expr = jstr(custom, "flops");
    o.bytes_expr = jstr(custom, "bytes");
    for (const auto& [k, v] : jobj(custom, "vars").items()) {
      if (v.is_number()) o.vars.push_back(k + "=" + fmt::format("{}", v.get<double>()));
    }
  } else if (!op.empty()) {
    o.op = op;
  } else if (const json& kb = jobj(r.result, "roofline"); !kb.empty()) {
    if (jstr(kb, "op").empty()) {
      u.why_not = jstr(kb, "message");  // KernelBench, not one catalog op: custom
      return u;
    }
    o.op = jstr(kb, "op");
  } else if (r.target.op) {
    o.op = r.target.op;
  } else {
    u.why_not = "no op to count bytes and FLOPs for: run `kgo roofline --op <op>` (or --flops/--bytes) first";
    return u;
  }
  o.dtype = jstr(doc, "dtype", r.target.dtype);
  if (auto f = jnum(doc, "fraction")) o.fraction = *f;
  for (const auto& s : jobj(r.result, "sizes")) {
    auto median = jnum(s, "median_us");
    if (!median || *median <= 0) continue;
    o.shapes.push_back(shape_label(catalog_shape(r.result, s.value("shape", json::array()))));
    o.time_us.push_back(*median);
  }
  if (o.shapes.empty()) {
    u.why_not = "no size was timed";
    return u;
  }
  try {
    roofline::RooflineRun run = roofline::run_roofline(workspace, o);
    const roofline::Analysis& a = run.analysis;
    u.available = true;
    u.op = a.op;
    u.dtype = a.dtype;
    u.fraction = a.fraction;
    u.bandwidth_cited = a.inputs.bandwidth.cited();
    u.bandwidth_source = a.inputs.bandwidth.source();
    u.compute_cited = a.inputs.compute.cited();
    u.compute_source = a.inputs.compute.source();
    u.compute_metric = a.inputs.compute.metric;
    for (const auto& s : a.shapes) {
      if (!s.measured) continue;
      SizeUtilization su;
      su.label = s.c.label;
      su.bound = roofline::to_string(s.bound);
      su.governing = roofline::to_string(s.governing);
      su.target_time_s = s.target_time_s;
      su.pct_of_bandwidth = s.measured->pct_of_bandwidth;
      su.pct_of_compute = s.measured->pct_of_compute;
      su.pct_of_target = s.measured->pct_of_target;
      su.met = s.measured->met;
      u.sizes.push_back(su);
    }
  } catch (const Error& e) {
    u.available = false;
    u.why_not = std::string(e.what());
  }
  return u;
}

}  // namespace kgo::harness
