#include "iterate/memory_view.hpp"

#include <map>

#include <fmt/format.h>

#include "core/memory.hpp"
#include "iterate/records.hpp"

namespace kgo::iterate {

using nlohmann::json;

Summary summarize(const fs::path& workspace, bool include_masked) {
  Summary s;
  auto records = load_records(workspace);
  const Record* best = current_best(records);
  for (const auto& r : records) {
    if (!r.masked()) s.latest = "v" + std::to_string(r.n);
    if (r.masked() && !include_masked) {
      ++s.masked_left_out;
      continue;
    }
    RecordRow row;
    row.version = "v" + std::to_string(r.n);
    row.masked = r.masked();
    row.timestamp = r.j.value("timestamp", "");
    const json* status = core::find_path(r.j, "correctness.status");
    row.correctness = status && status->is_string() ? status->get<std::string>() : "";
    row.gate = r.gate();
    row.latency_us = r.number("performance.latency_us");
    row.tflops = r.number("performance.tflops");
    row.bandwidth_gbps = r.number("performance.bandwidth_gbps");
    row.tflops_pct = r.number("performance.tflops_peak_utilization_pct");
    row.bandwidth_pct = r.number("performance.bandwidth_peak_utilization_pct");
    const json* action = core::find_path(r.j, "optimization.action_category");
    row.action = action && action->is_string() ? action->get<std::string>() : "";
    if (r.j.contains("git_commit") && r.j["git_commit"].is_string()) row.commit = r.j["git_commit"].get<std::string>();
    row.best = best == &r;
    if (row.best) s.best = row.version;
    s.rows.push_back(std::move(row));
  }
  return s;
}

namespace {

json opt(const std::optional<double>& v) { return v ? json(*v) : json(); }
std::string fmt_num(const std::optional<double>& v, const char* f) { return v ? fmt::format(fmt::runtime(f), *v) : "-"; }

}  // namespace

json to_json(const Summary& s) {
  json rows = json::array();
  for (const auto& r : s.rows) {
    rows.push_back({{"version", r.version}, {"masked", r.masked}, {"timestamp", r.timestamp},
                    {"correctness", r.correctness.empty() ? json() : json(r.correctness)}, {"gate", r.gate},
                    {"latency_us", opt(r.latency_us)}, {"tflops", opt(r.tflops)},
                    {"bandwidth_gbps", opt(r.bandwidth_gbps)}, {"tflops_peak_utilization_pct", opt(r.tflops_pct)},
                    {"bandwidth_peak_utilization_pct", opt(r.bandwidth_pct)}, {"action_category", r.action},
                    {"git_commit", r.commit ? json(*r.commit) : json()}, {"best", r.best}});
  }
  return {{"records", rows}, {"masked_left_out", s.masked_left_out},
          {"best", s.best ? json(*s.best) : json()}, {"latest", s.latest ? json(*s.latest) : json()}};
}

std::string render_summary(const Summary& s) {
  std::string out = fmt::format("{:<14} {:<13} {:<12} {:>12} {:>9} {:>9} {:>9} {:>7}  {:<20} {}\n", "Version", "Gate",
                                "Correctness", "Latency(us)", "TFLOP/s", "GB/s", "TFLOP/s%", "GB/s%", "Action", "Commit");
  for (const auto& r : s.rows) {
    std::string v = r.version + (r.masked ? " [masked]" : r.best ? " *" : "");
    out += fmt::format("{:<14} {:<13} {:<12} {:>12} {:>9} {:>9} {:>9} {:>7}  {:<20} {}\n", v, r.gate,
                       r.correctness.empty() ? "-" : r.correctness, fmt_num(r.latency_us, "{:.2f}"),
                       fmt_num(r.tflops, "{:.2f}"), fmt_num(r.bandwidth_gbps, "{:.1f}"), fmt_num(r.tflops_pct, "{:.1f}"),
                       fmt_num(r.bandwidth_pct, "{:.1f}"), r.action.empty() ? "-" : r.action,
                       r.commit ? r.commit->substr(0, 12) : "-");
  }
  if (s.rows.empty()) out += "(no records)\n";
  if (s.best) out += "* current best: " + *s.best + "\n";
  if (s.masked_left_out) {
    out += fmt::format("{} masked record{} left out (--include-masked shows {})\n", s.masked_left_out,
                       s.masked_left_out == 1 ? "" : "s", s.masked_left_out == 1 ? "it" : "them");
  }
  return out;
}

std::string render_list(const Summary& s) {
  std::string out;
  for (const auto& r : s.rows) {
    out += fmt::format("{:<6}{:<9} {:<21} {:<12} memory/{}.json\n", r.version, r.masked ? " MASKED" : "", r.timestamp,
                       r.gate, r.version);
  }
  if (s.rows.empty()) out += "(no records; `kgo memory create` makes v0)\n";
  return out;
}

namespace {

void flatten(const json& j, const std::string& path, std::map<std::string, json>& out) {
  if (j.is_object() && !j.empty()) {
    for (const auto& [k, v] : j.items()) flatten(v, path.empty() ? k : path + "." + k, out);
  } else if (j.is_array() && !j.empty()) {
    for (size_t i = 0; i < j.size(); ++i) flatten(j[i], path + "[" + std::to_string(i) + "]", out);
  } else {
    out[path] = j;
  }
}

}  // namespace

std::vector<DiffEntry> diff_records(const json& a, const json& b) {
  std::map<std::string, json> fa, fb;
  flatten(a, "", fa);
  flatten(b, "", fb);
  std::vector<DiffEntry> out;
  for (const auto& [path, va] : fa) {
    auto it = fb.find(path);
    if (it == fb.end()) out.push_back({path, va, std::nullopt});
    else if (it->second != va) out.push_back({path, va, it->second});
  }
  for (const auto& [path, vb] : fb) {
    if (!fa.count(path)) out.push_back({path, std::nullopt, vb});
  }
  std::sort(out.begin(), out.end(), [](const DiffEntry& x, const DiffEntry& y) { return x.path < y.path; });
  return out;
}

std::string render_diff(const std::string& va, const std::string& vb, const std::vector<DiffEntry>& d) {
  std::string out = "--- " + va + "\n+++ " + vb + "\n";
  for (const auto& e : d) {
    if (!e.b) out += "- " + e.path + ": " + e.a->dump() + "\n";
    else if (!e.a) out += "+ " + e.path + ": " + e.b->dump() + "\n";
    else out += "~ " + e.path + ": " + e.a->dump() + " -> " + e.b->dump() + "\n";
  }
  if (d.empty()) out += "(identical)\n";
  return out;
}

std::optional<int> latest_record(const fs::path& workspace, bool include_masked) {
  auto versions = core::record_versions(workspace);
  for (auto it = versions.rbegin(); it != versions.rend(); ++it) {
    if (include_masked || !core::read_record(workspace, *it, true).value("masked", false)) return *it;
  }
  return std::nullopt;
}

}  // namespace kgo::iterate
