#include "report/data.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/files.hpp"
#include "core/memory.hpp"
#include "core/stamp.hpp"
#include "core/workspace.hpp"
#include "iterate/hypothesis.hpp"
#include "iterate/records.hpp"
#include "profiling/ncu_csv.hpp"
#include "profiling/stalls.hpp"

namespace kgo::report {

using nlohmann::json;

namespace {

std::optional<double> num(const json& j, const std::string& dotted) {
  const json* v = core::find_path(j, dotted);
  return v && v->is_number() ? std::optional<double>(v->get<double>()) : std::nullopt;
}

std::string str(const json& j, const std::string& dotted) {
  const json* v = core::find_path(j, dotted);
  return v && v->is_string() ? v->get<std::string>() : "";
}

json read_json(const fs::path& p) {
  auto text = core::try_read_file(p);
  if (!text) return nullptr;
  json j = json::parse(*text, nullptr, false);
  return j.is_discarded() ? json() : j;
}

std::optional<Cited> cited(const json& ref) {
  if (!ref.is_object() || !ref["si_value"].is_number()) return std::nullopt;
  return Cited{ref["si_value"].get<double>(), str(ref, "cited"), str(ref, "citation")};
}

void read_roofline(const fs::path& ws, ReportData& d) {
  json r = read_json(ws / "roofline.json");
  if (!r.is_object()) {
    d.roofline_note = "no roofline.json (run `kgo roofline`)";
    return;
  }
  d.op = str(r, "op");
  d.bandwidth = cited(r["inputs"]["bandwidth"]);
  d.compute = cited(r["inputs"]["compute"]);
  d.ridge = num(r, "ridge_flop_per_byte");
  const json* best = nullptr;
  const json& shapes = r["shapes"];
  for (size_t i = 0; shapes.is_array() && i < shapes.size(); ++i) {
    const json& s = shapes[i];
    if (s.is_object() && (!best || s.value("bytes", 0.0) > best->value("bytes", 0.0))) best = &s;
  }
  if (best) {
    d.headline_shape = best->value("label", "");
    d.headline_ai = num(*best, "arithmetic_intensity");
    d.headline_flops = num(*best, "flops");
    d.headline_bytes = num(*best, "bytes");
  }
  if (!d.bandwidth || !d.compute) d.roofline_note = "roofline.json names no cited bandwidth or compute roof";
}

void read_profile(const fs::path& ws, VersionRow& v, const ReportData& d) {
  fs::path dir = ws / "profiles" / core::version_name(v.n);
  json p = read_json(dir / "profile.json");
  if (!p.is_object()) {
    v.profile_note = "not profiled (no profiles/" + core::version_name(v.n) + "/profile.json)";
    return;
  }
  v.ncu_memory_pct = num(p, "numbers.memory_pct");
  v.ncu_sm_pct = num(p, "numbers.sm_pct");
  v.occupancy_pct = num(p, "numbers.achieved_occupancy_pct");
  v.bottleneck = str(p, "verdict.bottleneck");
  if (!p.value("counters", true)) v.profile_note = "no hardware counters: " + str(p, "counters_message");
  auto raw = core::try_read_file(dir / "ncu_raw.csv");
  if (!raw) return;
  auto rep = profiling::parse_ncu_csv(*raw);
  const profiling::NcuLaunch* l = nullptr;
  auto chosen = num(p, "chosen.id");
  for (const auto& x : rep.launches) {
    if (!l || (chosen && x.id == static_cast<int>(*chosen))) l = &x;
  }
  if (!l) return;
  v.registers = l->number("launch__registers_per_thread");
  auto r = profiling::stall_ranking(*l);
  v.stall_metric = r.family;
  for (size_t i = 0; i < r.stalls.size() && i < 3; ++i) v.stalls.push_back(r.stalls[i]);
  auto rd = l->number("dram__bytes_read.sum"), wr = l->number("dram__bytes_write.sum");
  if (rd && wr && *rd + *wr > 0 && d.headline_flops) v.measured_ai = *d.headline_flops / (*rd + *wr);
}

VersionRow version_row(const fs::path& ws, const iterate::Record& r, const ReportData& d) {
  VersionRow v;
  v.n = r.n;
  v.masked = r.masked();
  v.gate = r.gate();
  v.action = r.j["optimization"].value("action_category", "");
  if (v.action.empty()) v.action = r.n == 0 ? "baseline" : "unnamed";
  auto h = iterate::plan_hypothesis(ws, r.n);
  v.change = h && !h->change.empty() ? h->change : iterate::summary_text(r.j);
  std::string reason = str(r.j, "quality_gate.failure_reason");
  if (v.gate == "PASS") v.decision = r.accepted() ? "accepted" : "passed the gate, not committed";
  else if (v.gate == "PENDING") v.decision = "pending: not decided yet";
  else v.decision = "rejected: " + (reason.empty() ? v.gate : reason);
  if (v.masked) v.decision += " (masked by a restart)";
  v.allowed_ops = core::allowed_ops(r.j);
  const json& perf = r.j["performance"];
  if (perf.is_object()) {
    v.latency_us = num(perf, "latency_us");
    v.bandwidth_pct = num(perf, "bandwidth_peak_utilization_pct");
    v.compute_pct = num(perf, "tflops_peak_utilization_pct");
    v.pct_of_target = num(perf, "bandwidth_target_utilization_pct");
    if (!v.pct_of_target) v.pct_of_target = num(perf, "tflops_target_utilization_pct");
    if (auto t = num(perf, "tflops")) v.achieved_flops = *t * 1e12;
    if (auto g = num(perf, "bandwidth_gbps")) v.achieved_bytes_per_s = *g * 1e9;
    for (const auto& s : perf.value("details", json::object()).value("sizes", json::array())) {
      SizeRow sr;
      json shape = s.value("shape", json::array());
      for (const auto& x : shape) sr.shape += (sr.shape.empty() ? "" : "x") + x.dump();
      sr.latency_us = num(s, "median_us");
      sr.vs_eager = num(s, "speedup_vs_eager");
      sr.vs_compile = num(s, "speedup_vs_compile");
      sr.pct_of_target = num(s, "pct_of_target");
      v.sizes.push_back(sr);
    }
  }
  v.prediction = iterate::prediction_text(r.j);
  read_profile(ws, v, d);
  return v;
}

void environment(const std::vector<iterate::Record>& records, const core::WorkspaceConfig& cfg, ReportData& d) {
  d.environment = {{"Platform (kgo.json)", cfg.platform + " (" + cfg.arch + ")"},
                   {"Framework / dtype", cfg.framework + " / " + cfg.dtype}};
  const json* env = nullptr;
  for (const auto& r : records) {
    if (r.j["environment"].is_object()) env = &r.j["environment"];
  }
  if (!env) {
    d.environment.push_back({"Measured environment", "N/A: no record holds an environment (run `kgo bench` on a GPU)"});
    return;
  }
  for (const char* k : {"gpu", "compute_capability", "driver", "cuda", "torch", "triton", "python", "hostname"}) {
    std::string v = (*env)[k].is_string() ? (*env)[k].get<std::string>() : "N/A: not reported by the harness";
    d.environment.push_back({k, v});
  }
  d.environment.push_back({"clocks (measured)", (*env)["clocks"].is_object() ? (*env)["clocks"].dump() : "N/A: not reported"});
}

void choose_best(ReportData& d, int decided, int budget) {
  for (size_t i = 0; i < d.versions.size(); ++i) {
    const auto& v = d.versions[i];
    if (v.gate != "PASS" || v.masked || !v.latency_us) continue;
    if (!d.best || *v.latency_us < *d.versions[*d.best].latency_us) d.best = static_cast<int>(i);
  }
  if (!d.best) {
    d.stopping_reason = "N/A: no accepted version with a stamped latency yet";
    return;
  }
  const VersionRow& b = d.versions[*d.best];
  if (b.pct_of_target && *b.pct_of_target >= 100) {
    d.stopping_reason = fmt::format("target met: v{} reaches {:.0f}% of the roofline target", b.n, *b.pct_of_target);
  } else if (decided >= budget) {
    d.stopping_reason = fmt::format("budget: {} iterations decided of a budget of {}", decided, budget);
  } else if (auto sat = std::max(b.ncu_memory_pct.value_or(0), b.ncu_sm_pct.value_or(0)); sat >= 80) {
    d.stopping_reason = fmt::format("saturated bottleneck: v{}'s busiest unit is at {:.0f}% of peak (ncu), above the "
                                    "80% saturation threshold of kgo profile's verdict", b.n, sat);
  } else {
    d.stopping_reason = fmt::format("not stopped: the target is not met, {} of {} iterations are decided, and no unit "
                                    "is saturated", decided, budget);
  }
}

}  // namespace

ReportData collect(const fs::path& ws, const ReportOptions& opts) {
  ReportData d;
  core::WorkspaceConfig cfg = core::load_config(ws);
  d.name = cfg.name;
  d.platform = cfg.platform;
  d.arch = cfg.arch;
  d.dtype = cfg.dtype;
  d.framework = cfg.framework;
  read_roofline(ws, d);
  auto records = iterate::load_records(ws);
  environment(records, cfg, d);
  for (const auto& r : records) d.versions.push_back(version_row(ws, r, d));
  double v0 = 0;
  for (const auto& v : d.versions) {
    if (v.n == 0 && v.latency_us) v0 = *v.latency_us;
  }
  for (auto& v : d.versions) {
    if (v0 > 0 && v.latency_us) v.speedup_vs_v0 = v0 / *v.latency_us;
  }
  // --budget, else the one fixed at init
  choose_best(d, iterate::decided_iterations(records), opts.budget.value_or(cfg.max_iterations));
  return d;
}

}  // namespace kgo::report
