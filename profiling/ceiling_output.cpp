// kgo ceiling's output side: kgo_ceiling's JSON lines -> canonical figures, --json and the text report.
#include "profiling/ceiling.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace kgo::profiling {

namespace {

// Parentheses would end the wiki line's note early; the index reads "value unit (note)".
std::string plain_note(std::string s) {
  for (char& c : s) {
    if (c == '(' || c == ')') c = ' ';
  }
  std::string out;
  for (char c : s) {
    if (c == ' ' && !out.empty() && out.back() == ' ') continue;
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  std::string tidy;  // "sizes , FP32" -> "sizes, FP32"
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == ' ' && i + 1 < out.size() && (out[i + 1] == ',' || out[i + 1] == ';')) continue;
    tidy += out[i];
  }
  return tidy;
}

}  // namespace

CeilingResult parse_ceiling_output(std::string_view text) {
  CeilingResult r;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(pos, end - pos));
    pos = end + 1;
    if (line.empty() || line[0] != '{') continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) continue;
    if (j.contains("device")) {
      r.device = j["device"];
      for (const char* k : {"cuda_runtime", "cuda_driver", "array_bytes", "repeats", "warmup"}) {
        if (j.contains(k)) r.device[k] = j[k];
      }
    } else if (j.contains("metric") && j["value"].is_number()) {
      CeilingLine l;
      l.metric = j["metric"].get<std::string>();
      l.value = j["value"].get<double>();
      l.unit = j.value("unit", "");
      l.median_ms = j.value("median_ms", 0.0);
      l.min_ms = j.value("min_ms", 0.0);
      l.max_ms = j.value("max_ms", 0.0);
      l.repeats = j.value("repeats", 0);
      l.note = j.value("note", "");
      l.raw = j;
      r.lines.push_back(l);
    }
  }
  if (r.device.is_null()) {
    throw Error("kgo_ceiling printed no device line; its output was:\n" + std::string(text.substr(0, 2000)),
                ExitCode::failure);
  }
  r.figures = canonical_figures(r.lines, r.device);
  return r;
}

std::vector<MeasuredFigure> canonical_figures(const std::vector<CeilingLine>& lines, const nlohmann::json&) {
  std::vector<MeasuredFigure> out;
  const CeilingLine* best_bw = nullptr;
  for (const auto& l : lines) {
    if (l.metric.rfind("info_", 0) == 0) continue;
    MeasuredFigure f{l.metric, l.value, l.unit, plain_note(l.note)};
    if (l.metric.rfind("hbm_bandwidth_", 0) == 0) {
      if (!best_bw || l.value > best_bw->value) best_bw = &l;
    }
    out.push_back(f);
  }
  if (best_bw) {
    std::string pattern = best_bw->metric.substr(std::string("hbm_bandwidth_").size());
    out.insert(out.begin(), MeasuredFigure{"hbm_bandwidth", best_bw->value, "bytes_per_s",
                                           "best pattern: " + plain_note(best_bw->note)});
  }
  return out;
}

nlohmann::json to_json(const CeilingResult& r) {
  nlohmann::json figures = nlohmann::json::array(), lines = nlohmann::json::array();
  for (const auto& f : r.figures) {
    figures.push_back({{"metric", f.metric}, {"value", f.base_value}, {"unit", f.dimension},
                       {"display", display_value(f)}, {"note", f.note}});
  }
  for (const auto& l : r.lines) lines.push_back(l.raw);
  auto opt = [](std::optional<double> v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  return {{"device", r.device},
          {"figures", figures},
          {"lines", lines},
          {"clocks", {{"samples", r.clocks.samples},
                      {"sm_mhz_min", opt(r.clocks.sm_mhz_min)},
                      {"sm_mhz_median", opt(r.clocks.sm_mhz_median)},
                      {"sm_mhz_max", opt(r.clocks.sm_mhz_max)},
                      {"mem_mhz_median", opt(r.clocks.mem_mhz_median)},
                      {"power_w_max", opt(r.clocks.power_w_max)},
                      {"clock_events", r.clocks.clock_events},
                      {"driver_version", r.clocks.driver_version}}},
          {"binary", r.binary},
          {"built", r.built},
          {"build_seconds", r.build_seconds},
          {"run_seconds", r.run_seconds},
          {"date", r.date},
          {"product", r.product ? nlohmann::json(*r.product) : nlohmann::json()},
          {"recorded", r.recorded ? nlohmann::json(r.recorded->string()) : nlohmann::json()},
          {"wiki", r.wiki ? wiki::to_json(*r.wiki) : nlohmann::json()}};
}

std::string render_text(const CeilingResult& r) {
  std::string s = fmt::format("kgo ceiling on {} (cc {}), {}\n", r.device.value("name", "GPU"),
                              r.device.value("cc", "?"), r.date);
  for (const auto& f : r.figures) s += fmt::format("  {:<20} {:>14}  {}\n", f.metric, display_value(f), f.note);
  for (const auto& l : r.lines) {
    if (l.metric.rfind("info_", 0) != 0) continue;
    MeasuredFigure f{l.metric, l.value, l.unit, ""};
    s += fmt::format("  {:<20} {:>14}  {}\n", l.metric.substr(5), display_value(f), plain_note(l.note));
  }
  if (r.clocks.sm_mhz_median) {
    s += fmt::format("  clocks: SM median {:.0f} MHz (min {:.0f}, max {:.0f}), driver {}\n", *r.clocks.sm_mhz_median,
                     r.clocks.sm_mhz_min.value_or(0), r.clocks.sm_mhz_max.value_or(0), r.clocks.driver_version);
  }
  if (r.built) s += fmt::format("  built {} in {:.1f} s\n", r.binary, r.build_seconds);
  if (r.recorded) s += "  recorded: " + r.recorded->string() + "\n";
  if (r.wiki) s += "  gpu-wiki: " + wiki::describe(*r.wiki) + "\n";
  return s;
}

}  // namespace kgo::profiling
