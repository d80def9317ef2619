// Renderers of kgo profile: the record's profile_evidence, --json, the text report and the markdown
// pieces of ncu_summary.md.
#include "profiling/profile.hpp"

#include <fmt/format.h>

#include "core/memory.hpp"
#include "core/strings.hpp"

namespace kgo::profiling {

namespace {

// The record schema's names: memory -> memory_bound; unknown and mixed stay as they are.
std::string bottleneck_type(const std::string& b) {
  if (b == "unknown" || b == "mixed") return b;
  return b + "_bound";
}

}  // namespace

nlohmann::json profile_evidence(const ProfileResult& r) {
  std::string tool = r.counters ? fmt::format("ncu {} --set {} --clock-control none", r.ncu_version, r.set)
                                : "timing-only: kgo bench (ncu counters unavailable)";
  std::string summary = r.chosen ? fmt::format("{}: {} ({}); {:.2f} us", r.chosen->kernel, r.verdict.bottleneck,
                                               r.verdict.rule, r.chosen->duration_ns.value_or(0) / 1000.0)
                                 : r.verdict.evidence;
  return {{"tool_used", tool},
          {"evidence_summary", summary},
          {"bottleneck_type", bottleneck_type(r.verdict.bottleneck)},
          {"evidence_chain", nlohmann::json::array({{{"evidence", r.verdict.evidence},
                                                     {"inference", r.verdict.inference},
                                                     {"action", r.verdict.action}}})}};
}

nlohmann::json to_json(const ProfileResult& r) {
  nlohmann::json launches = nlohmann::json::array();
  for (const auto& l : r.launches) {
    launches.push_back({{"id", l.id}, {"kernel", l.kernel},
                        {"duration_ns", l.duration_ns ? nlohmann::json(*l.duration_ns) : nlohmann::json()}});
  }
  nlohmann::json thresholds;
  to_json(thresholds, r.thresholds);
  return {{"workspace", r.workspace.string()},
          {"version", core::version_name(r.version)},
          {"dir", r.dir.string()},
          {"ncu", {{"path", r.ncu_path}, {"version", r.ncu_version}, {"command", r.command},
                   {"clock_control", r.clock_control}, {"set", r.set}, {"passes", r.ncu_passes},
                   {"seconds", r.ncu_seconds}}},
          {"counters", r.counters},
          {"counters_message", r.counters_message},
          {"selection", r.selection},
          {"launches", launches},
          {"chosen", r.chosen ? nlohmann::json{{"id", r.chosen->id}, {"kernel", r.chosen->kernel}} : nlohmann::json()},
          {"numbers", to_json(r.numbers)},
          {"verdict", to_json(r.verdict)},
          {"thresholds", thresholds},
          {"timing", r.timing},
          {"files", r.files},
          {"record_updated", r.record_note.empty()},
          {"record_note", r.record_note},
          {"seconds", r.total_seconds}};
}

Verdict timing_only_verdict(const ProfileResult& r, const std::string& shape) {
  Verdict v;
  v.bottleneck = "unknown";
  v.rule = "none: hardware counters unavailable";
  v.evidence = "ncu could not read the GPU's performance counters (" + r.counters_message + "); timing only: " +
               (r.timing.contains("median_us")
                    ? fmt::format("median {:.2f} us at {}", r.timing["median_us"].get<double>(), shape)
                    : r.timing.value("message", std::string("no timing")));
  v.inference = "no counter-based bottleneck classification is possible on this machine";
  v.action = "compare the time with the roofline targets (kgo roofline), or profile on a machine "
             "that grants counter access (root, or NVreg_RestrictProfilingToAdminUsers=0)";
  return v;
}

std::string render_timing_only_md(const ProfileResult& r) {
  return "# Nsight Compute summary (measured)\n\nHardware counters are not available here: " + r.counters_message +
         "\n\nTiming-only evidence: " + r.verdict.evidence + "\n";
}

std::string render_verdict_md(const ProfileResult& r) {
  std::string md = fmt::format(
      "- bottleneck: **{}**\n- rule: {}\n- evidence: {}\n- inference: {}\n- action: {}\n- selection: {}\n",
      r.verdict.bottleneck, r.verdict.rule, r.verdict.evidence, r.verdict.inference, r.verdict.action, r.selection);
  if (r.launches.size() > 1) {
    md += "\nLaunches in the report:\n\n| ID | Kernel | Duration (ns) |\n|---|---|---|\n";
    for (const auto& l : r.launches) {
      md += fmt::format("| {} | {} | {} |\n", l.id, l.kernel,
                        l.duration_ns ? fmt::format("{:.0f}", *l.duration_ns) : "n/a");
    }
  }
  return md;
}

std::string render_text(const ProfileResult& r) {
  std::string s = fmt::format("kgo profile {}: {}\n", core::version_name(r.version),
                              r.chosen ? r.chosen->kernel : std::string("(no launch profiled)"));
  s += fmt::format("  ncu {} --set {} --clock-control none, {} pass(es), {:.1f} s; {}\n", r.ncu_version, r.set,
                   r.ncu_passes, r.ncu_seconds, r.selection);
  if (!r.counters) s += "  hardware counters unavailable: " + r.counters_message + "\n";
  auto pct = [](std::optional<double> v) { return v ? fmt::format("{:.1f}%", *v) : std::string("n/a"); };
  if (r.counters) {
    s += fmt::format("  SM {}  memory {}  DRAM {}  occupancy {} of {}  duration {}\n", pct(r.numbers.sm_pct),
                     pct(r.numbers.memory_pct), pct(r.numbers.dram_pct), pct(r.numbers.achieved_occupancy_pct),
                     pct(r.numbers.theoretical_occupancy_pct),
                     r.numbers.duration_ns ? fmt::format("{:.2f} us", *r.numbers.duration_ns / 1000) : "n/a");
  }
  s += fmt::format("  verdict: {}  [{}]\n", r.verdict.bottleneck, r.verdict.rule);
  s += "  evidence: " + r.verdict.evidence + "\n  inference: " + r.verdict.inference + "\n  action: " +
       r.verdict.action + "\n";
  s += "  wrote: " + join(r.files, ", ") + "\n";
  s += "  record " + core::version_name(r.version) + ": " +
       (r.record_note.empty() ? std::string("profile_evidence updated") : r.record_note) + "\n";
  return s;
}

}  // namespace kgo::profiling
