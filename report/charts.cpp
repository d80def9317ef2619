#include "report/charts.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/svg.hpp"

namespace kgo::report {

namespace {

std::string gate_color(const VersionRow& v) {
  if (v.gate == "PASS") return "#2e8b57";
  if (v.gate == "PENDING") return "#9a9a9a";
  return "#d9534f";
}

std::vector<std::pair<std::string, std::string>> gate_legend() {
  return {{"#2e8b57", "accepted (PASS)"}, {"#d9534f", "rejected"}, {"#9a9a9a", "pending"}};
}

double floor_pow10(double v) { return std::pow(10.0, std::floor(std::log10(v))); }
double ceil_pow10(double v) { return std::pow(10.0, std::ceil(std::log10(v))); }

std::string empty_chart(const std::string& title, const std::string& why) {
  Svg s(720, 200, title);
  s.text(360, 110, why, 13, "middle");
  return s.str();
}

}  // namespace

std::optional<RooflinePoint> roofline_point(const ReportData& d, const VersionRow& v) {
  if (!d.headline_ai || !d.headline_flops || *d.headline_flops <= 0) return std::nullopt;
  RooflinePoint p;
  // ncu's DRAM bytes give the measured AI only when the profiled run moved about the headline shape's
  // bytes (within 2x); a profile of another size would put the point at another problem's AI.
  p.measured_ai = v.measured_ai && *v.measured_ai > *d.headline_ai / 2 && *v.measured_ai < *d.headline_ai * 2;
  p.ai = p.measured_ai ? *v.measured_ai : *d.headline_ai;
  if (v.achieved_flops && *v.achieved_flops > 0) p.flops = *v.achieved_flops;
  else if (v.achieved_bytes_per_s && *v.achieved_bytes_per_s > 0) p.flops = *v.achieved_bytes_per_s * *d.headline_ai;
  else return std::nullopt;
  return p;
}

std::string roofline_svg(const ReportData& d) {
  std::string title = fmt::format("Roofline: {} {} on {}", d.op.empty() ? d.name : d.op, d.dtype, d.platform);
  if (!d.bandwidth || !d.compute || !d.ridge) return empty_chart(title, "N/A: " + d.roofline_note);
  double bw = d.bandwidth->si, peak = d.compute->si, ridge = *d.ridge;
  std::vector<std::pair<const VersionRow*, RooflinePoint>> pts;
  for (const auto& v : d.versions) {
    if (auto p = roofline_point(d, v)) pts.push_back({&v, *p});
  }
  double ai_lo = ridge, ai_hi = ridge, f_lo = peak;
  for (const auto& [v, p] : pts) {
    ai_lo = std::min(ai_lo, p.ai);
    ai_hi = std::max(ai_hi, p.ai);
    f_lo = std::min(f_lo, p.flops);
  }
  Axis x{floor_pow10(ai_lo / 3), ceil_pow10(ai_hi * 3), true, "arithmetic intensity (FLOP/byte)"};
  f_lo = std::min(f_lo, bw * x.lo);
  Axis y{floor_pow10(f_lo / 1e9 / 2), ceil_pow10(peak / 1e9 * 2), true, "attainable performance (GFLOP/s)"};
  Svg s(760, 500, title);
  s.right = 40;
  s.frame(x, y);
  // Roofs (GFLOP/s): memory roof up to the ridge, compute roof after it.
  double g_bw = bw / 1e9, g_peak = peak / 1e9;
  double x_start = std::max(x.lo, y.lo / g_bw);
  s.data_line(x_start, g_bw * x_start, ridge, g_peak, "#1f5fa8", 2.5);
  s.data_line(ridge, g_peak, x.hi, g_peak, "#1f5fa8", 2.5);
  s.data_line(ridge, y.lo, ridge, g_peak, "#1f5fa8", 1, "4 4");
  s.text(s.px(ridge) + 6, s.py(y.lo) - 8, fmt::format("ridge {:.3g} FLOP/byte", ridge), 11, "start", "#1f5fa8");
  s.text(s.px(x.hi) - 6, s.py(g_peak) - 8, "compute roof " + d.compute->text, 10, "end",
         "#1f5fa8");
  double angle = std::atan2(s.py(g_peak) - s.py(g_bw * x_start), s.px(ridge) - s.px(x_start)) * 180 / M_PI;
  double lx = x_start * 1.5;
  s.text(s.px(lx), s.py(g_bw * lx) - 6, "memory roof " + d.bandwidth->text, 10, "start", "#1f5fa8", angle);
  // Accepted points are drawn last and smaller, so a rejected point at the same place shows as a ring
  // around the accepted one instead of hiding it.
  std::vector<size_t> draw(pts.size());
  for (size_t k = 0; k < draw.size(); ++k) draw[k] = k;
  std::stable_sort(draw.begin(), draw.end(), [&](size_t a, size_t b) {
    return (pts[a].first->gate == "PASS") < (pts[b].first->gate == "PASS");
  });
  for (size_t k : draw) {
    const auto& [v, p] = pts[k];
    s.circle(s.px(p.ai), s.py(p.flops / 1e9), v->gate == "PASS" ? 5 : 8, gate_color(*v));
  }
  // Labels alternate right / left of their points and are pushed apart vertically when they would overlap.
  std::vector<std::pair<double, size_t>> order;
  for (size_t k = 0; k < pts.size(); ++k) order.push_back({s.py(pts[k].second.flops / 1e9), k});
  std::sort(order.begin(), order.end());
  double last[2] = {-1e9, -1e9};
  for (size_t i = 0; i < order.size(); ++i) {
    const auto& [v, p] = pts[order[i].second];
    double cx = s.px(p.ai), cy = order[i].first;
    int side = static_cast<int>(i % 2);
    double ly = std::max(cy + 4, last[side] + 13);
    last[side] = ly;
    s.text(cx + (side ? -9 : 9), ly, "v" + std::to_string(v->n), 11, side ? "end" : "start");
  }
  auto legend = gate_legend();
  bool any_measured = std::any_of(pts.begin(), pts.end(), [](const auto& q) { return q.second.measured_ai; });
  legend.push_back({"#ffffff", any_measured ? "AI: op FLOPs / DRAM bytes measured by ncu"
                                            : "AI: op FLOPs / algorithmic bytes of " + d.headline_shape});
  s.legend(legend);
  if (pts.empty()) s.text(s.px(std::sqrt(x.lo * x.hi)), s.py(std::sqrt(y.lo * y.hi)), "no version has a stamped measurement", 13, "middle");
  return s.str();
}

std::string latency_svg(const ReportData& d) {
  std::string title = "Latency and % of roofline target per version (" + d.name + ")";
  std::vector<const VersionRow*> rows;
  double hi = 0;
  for (const auto& v : d.versions) {
    if (v.latency_us) {
      rows.push_back(&v);
      hi = std::max(hi, *v.latency_us);
    }
  }
  if (rows.empty()) return empty_chart(title, "N/A: no version has a stamped latency (run `kgo bench`)");
  Svg s(std::max(520, 90 + 70 * static_cast<int>(rows.size())), 420, title);
  s.bottom = 70;
  Axis x{0, static_cast<double>(rows.size()), false, "version (label above each bar: % of the roofline target)", false};
  Axis y{0, hi * 1.5, false, "latency (us, mean of per-size medians)"};
  s.frame(x, y);
  for (size_t i = 0; i < rows.size(); ++i) {
    const VersionRow& v = *rows[i];
    double x0 = s.px(i + 0.2), x1 = s.px(i + 0.8);
    double top = s.py(*v.latency_us), base = s.py(0);
    s.rect(x0, top, x1 - x0, base - top, gate_color(v));
    s.text((x0 + x1) / 2, base + 32, "v" + std::to_string(v.n), 12, "middle");
    std::string label = v.pct_of_target ? fmt::format("{:.0f}%", *v.pct_of_target) : "n/a";
    s.text((x0 + x1) / 2, top - 6, label, 11, "middle");
  }
  s.legend(gate_legend());
  return s.str();
}

std::string speedup_svg(const ReportData& d) {
  std::string title = "Speedup per size vs eager and torch.compile";
  const VersionRow* v = d.best ? &d.versions[*d.best] : nullptr;
  if (!v || v->sizes.empty()) return empty_chart(title, "N/A: no accepted version with per-size bench data (run `kgo bench`)");
  title += " (v" + std::to_string(v->n) + ", best)";
  double hi = 1.0;
  for (const auto& sz : v->sizes) hi = std::max({hi, sz.vs_eager.value_or(0), sz.vs_compile.value_or(0)});
  Svg s(std::max(560, 120 + 110 * static_cast<int>(v->sizes.size())), 420, title);
  s.bottom = 70;
  Axis x{0, static_cast<double>(v->sizes.size()), false, "problem size (shape)", false};
  Axis y{0, hi * 1.35, false, "speedup (x = baseline time / kernel time)"};
  s.frame(x, y);
  s.data_line(0, 1, static_cast<double>(v->sizes.size()), 1, "#444", 1.2, "6 3");
  for (size_t i = 0; i < v->sizes.size(); ++i) {
    const SizeRow& sz = v->sizes[i];
    auto bar = [&](std::optional<double> val, double from, double to, const char* color) {
      double x0 = s.px(i + from), x1 = s.px(i + to);
      if (!val) {
        s.text((x0 + x1) / 2, s.py(0) - 6, "n/a", 10, "middle");
        return;
      }
      s.rect(x0, s.py(*val), x1 - x0, s.py(0) - s.py(*val), color);
      s.text((x0 + x1) / 2, s.py(*val) - 5, fmt::format("{:.2f}x", *val), 10, "middle");
    };
    bar(sz.vs_eager, 0.15, 0.48, "#4c72b0");
    bar(sz.vs_compile, 0.52, 0.85, "#dd8452");
    s.text(s.px(i + 0.5), s.py(0) + 32, sz.shape, 11, "middle");
  }
  s.legend({{"#4c72b0", "vs PyTorch eager"}, {"#dd8452", "vs torch.compile"}});
  return s.str();
}

}  // namespace kgo::report
