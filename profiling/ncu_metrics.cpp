#include "profiling/ncu_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

namespace kgo::profiling {

namespace {

const char* kStalls[] = {"barrier",        "branch_resolving", "dispatch_stall",     "drain",
                         "gmma",           "imc_miss",         "lg_throttle",        "long_scoreboard",
                         "math_pipe_throttle", "membar",       "mio_throttle",       "misc",
                         "no_instruction", "not_selected",     "selected",           "short_scoreboard",
                         "sleeping",       "tex_throttle",     "wait"};

std::vector<MetricSpec> build() {
  std::vector<MetricSpec> m = {
      {"Speed of Light", "sm__throughput.avg.pct_of_peak_sustained_elapsed", "Compute (SM) throughput", true},
      {"Speed of Light", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "Memory throughput", true},
      {"Speed of Light", "dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput", true},
      {"Speed of Light", "lts__throughput.avg.pct_of_peak_sustained_elapsed", "L2 throughput", false},
      {"Speed of Light", "l1tex__throughput.avg.pct_of_peak_sustained_active", "L1/TEX throughput", false},
      {"Speed of Light", "gpu__time_duration.sum", "Duration", true},
      {"Speed of Light", "sm__cycles_elapsed.avg.per_second", "SM frequency", true},
      {"Speed of Light", "dram__cycles_elapsed.avg.per_second", "DRAM frequency", false},
      {"Memory", "dram__bytes.sum.per_second", "DRAM bandwidth", true},
      {"Memory", "dram__bytes_read.sum.per_second", "DRAM read bandwidth", false},
      {"Memory", "dram__bytes_write.sum.per_second", "DRAM write bandwidth", false},
      {"Memory", "dram__bytes_read.sum", "DRAM bytes read", true},
      {"Memory", "dram__bytes_write.sum", "DRAM bytes written", true},
      {"Memory", "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second", "L1 global load bandwidth", false},
      {"Memory", "l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum.per_second", "L1 global store bandwidth", false},
      {"Memory", "lts__t_bytes.sum.per_second", "L2 bandwidth", false},
      {"Memory", "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", "Global load efficiency", true},
      {"Memory", "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct", "Global store efficiency", true},
      {"Memory", "l1tex__t_sector_hit_rate.pct", "L1 hit rate", false},
      {"Memory", "lts__t_sector_hit_rate.pct", "L2 hit rate", true},
      {"Compute", "smsp__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", "FMA pipe utilization", true},
      {"Compute", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", "Tensor pipe utilization", true},
      {"Compute", "sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active", "Tensor GMMA (wgmma) utilization", false},
      {"Compute", "sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active", "Tensor HMMA utilization", false},
      {"Compute", "smsp__inst_executed.avg.per_cycle_active", "IPC", true},
      {"Compute", "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed", "FADD per cycle", false},
      {"Compute", "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed", "FMUL per cycle", false},
      {"Compute", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed", "FFMA per cycle", false},
      {"Compute", "smsp__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active", "LSU pipe utilization", false},
      {"Occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active", "Achieved occupancy", true},
      {"Occupancy", "sm__maximum_warps_per_active_cycle_pct", "Theoretical occupancy", true},
      {"Occupancy", "launch__occupancy_limit_registers", "Block limit: registers", false},
      {"Occupancy", "launch__occupancy_limit_shared_mem", "Block limit: shared memory", false},
      {"Occupancy", "launch__occupancy_limit_warps", "Block limit: warps", false},
      {"Occupancy", "launch__occupancy_limit_blocks", "Block limit: blocks", false},
      {"Launch", "launch__block_size", "Block size", true},
      {"Launch", "launch__grid_size", "Grid size", true},
      {"Launch", "launch__registers_per_thread", "Registers per thread", true},
      {"Launch", "launch__shared_mem_per_block_static", "Static shared memory per block", false},
      {"Launch", "launch__shared_mem_per_block_dynamic", "Dynamic shared memory per block", false},
      {"Launch", "launch__waves_per_multiprocessor", "Waves per SM", true},
      {"Scheduler", "smsp__issue_active.avg.pct_of_peak_sustained_active", "Issue slot utilization", true},
      {"Scheduler", "smsp__warps_eligible.avg.per_cycle_active", "Eligible warps per cycle", false},
  };
  for (const char* s : kStalls) {
    m.push_back({"Warp stalls", fmt::format("smsp__average_warps_issue_stalled_{}_per_issue_active.ratio", s),
                 fmt::format("Stall: {}", s), false});
  }
  std::vector<MetricSpec> tail = {
      {"Divergence", "smsp__sass_branch_targets.sum", "Branch targets", false},
      {"Divergence", "smsp__sass_branch_targets_threads_divergent.sum", "Divergent branch targets", true},
      {"Divergence", "smsp__thread_inst_executed_per_inst_executed.ratio", "Warp execution efficiency (threads/inst)", true},
      {"Shared memory", "l1tex__data_bank_conflicts_pipe_lsu.sum", "Bank conflicts (LSU)", true},
      {"Shared memory", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "Bank conflicts: shared loads", false},
      {"Shared memory", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "Bank conflicts: shared stores", false},
      {"Shared memory", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "Shared-memory wavefronts", false},
      {"Shared memory", "sm__sass_data_bytes_mem_shared.sum.per_second", "Shared-memory bandwidth", false},
  };
  m.insert(m.end(), tail.begin(), tail.end());
  return m;
}

std::string md_escape(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

std::string header_table(const ProfileHeader& h, const NcuLaunch& l) {
  std::string s = "| Field | Value |\n|---|---|\n";
  auto row = [&](const std::string& k, const std::string& v) {
    s += "| " + k + " | " + md_escape(v.empty() ? "n/a" : v) + " |\n";
  };
  row("Kernel", h.kernel.empty() ? l.kernel : h.kernel);
  row("GPU", h.gpu);
  row("Compute capability", h.cc.empty() ? l.cc : h.cc);
  row("Block / grid", (h.block.empty() ? l.block : h.block) + " / " + (h.grid.empty() ? l.grid : h.grid));
  row("Clock control", h.clock_control);
  row("ncu set", h.set);
  row("ncu version", h.ncu_version);
  std::string cmd = h.command;
  size_t m = cmd.find("--metrics ");
  if (m != std::string::npos) {  // the full list is in profile.json and ncu_details.md
    size_t end = cmd.find(' ', m + 10);
    size_t count = 1 + std::count(cmd.begin() + m, end == std::string::npos ? cmd.end() : cmd.begin() + end, ',');
    cmd = cmd.substr(0, m + 10) + "<" + std::to_string(count) + " metrics, see ncu_details.md>" +
          (end == std::string::npos ? "" : cmd.substr(end));
  }
  row("Command", "`" + cmd + "`");
  return s;
}

}  // namespace

const std::vector<MetricSpec>& reported_metrics() {
  static const std::vector<MetricSpec> m = build();
  return m;
}

std::vector<std::string> requested_metrics() {
  std::vector<std::string> out;
  for (const auto& m : reported_metrics()) {
    if (m.name.rfind("launch__", 0) != 0) out.push_back(m.name);
  }
  return out;
}

std::string format_value(const MetricValue* v) {
  if (!v || v->text.empty()) return "n/a";
  if (!v->number) return v->text;
  double x = *v->number;
  return std::fabs(x) > 1e6 ? fmt::format("{:.2e}", x) : fmt::format("{:.4f}", x);
}

std::string render_summary(const ProfileHeader& h, const NcuLaunch& l, const std::string& verdict_md) {
  std::string s = "# Nsight Compute summary (measured)\n\n" + header_table(h, l);
  std::string group;
  for (const auto& m : reported_metrics()) {
    if (!m.summary) continue;
    if (m.group != group) {
      group = m.group;
      s += "\n## " + group + "\n\n| Metric | Measured value | Unit |\n|---|---|---|\n";
    }
    auto it = l.metrics.find(m.name);
    const MetricValue* v = it == l.metrics.end() ? nullptr : &it->second;
    s += "| " + m.label + " | " + format_value(v) + " | " + (v ? v->unit : "") + " |\n";
  }
  s += "\n## Bottleneck verdict\n\n" + verdict_md;
  if (s.back() != '\n') s += '\n';
  return s;
}

std::string render_details(const ProfileHeader& h, const NcuLaunch& l) {
  std::string s = "# Nsight Compute details (measured)\n\n" + header_table(h, l);
  std::set<std::string> shown;
  std::string group;
  for (const auto& m : reported_metrics()) {
    if (m.group != group) {
      group = m.group;
      s += "\n## " + group + "\n\n| Metric | Measured value | Unit | ncu metric |\n|---|---|---|---|\n";
    }
    auto it = l.metrics.find(m.name);
    const MetricValue* v = it == l.metrics.end() ? nullptr : &it->second;
    s += "| " + m.label + " | " + format_value(v) + " | " + (v ? v->unit : "") + " | `" + m.name + "` |\n";
    shown.insert(m.name);
  }
  s += "\nRequested with `--metrics` on top of the set: " + std::to_string(requested_metrics().size()) +
       " metrics (the rows above, except launch__*).\n";
  if (!l.rules.empty()) {
    s += "\n## ncu rules\n\n| Section | Rule | Type | Message |\n|---|---|---|---|\n";
    for (const auto& r : l.rules) {
      s += "| " + md_escape(r.section) + " | " + md_escape(r.name) + " | " + md_escape(r.type) + " | " +
           md_escape(r.description) + " |\n";
    }
  }
  size_t attributes = 0;
  std::string other;
  for (const auto& [name, v] : l.metrics) {
    if (shown.count(name)) continue;
    if (name.rfind("device__attribute_", 0) == 0) {
      ++attributes;
      continue;
    }
    other += "| `" + md_escape(name) + "` | " + md_escape(v.text.empty() ? "n/a" : v.text) + " | " +
             md_escape(v.unit) + " |\n";
  }
  if (!other.empty()) {
    s += "\n## Other metrics in the report\n\n| ncu metric | Measured value | Unit |\n|---|---|---|\n" + other;
  }
  if (attributes) {
    s += fmt::format("\n{} device__attribute_* columns are kept in the raw CSV.\n", attributes);
  }
  return s;
}

}  // namespace kgo::profiling
