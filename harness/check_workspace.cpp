#include "harness/check_workspace.hpp"

#include <iostream>

#include "core/workspace.hpp"
#include "harness/record.hpp"

namespace kgo::harness {

void set_check_timeouts(CheckSettings& s, const std::string& device, std::optional<double> case_timeout_s,
                        std::optional<double> timeout_s) {
  double scale = device == "cpu" ? k_cpu_timeout_scale : 1;
  s.case_timeout_s = case_timeout_s.value_or(s.case_timeout_s * scale);
  s.total_timeout_s = timeout_s.value_or(s.total_timeout_s * scale);
}

CheckReport check_workspace(const std::filesystem::path& ws, const CheckWorkspaceOptions& o) {
  core::WorkspaceConfig cfg = core::load_config(ws);
  Target target = verdict_target(ws, cfg, o.target);
  CheckSettings s = o.settings;
  if (target.device == "cpu" && s.progress) {
    std::cerr << "kgo check: " << (o.target.device == "auto" ? "no GPU found; " : "")
              << "running on the CPU with the Triton interpreter (TRITON_INTERPRET=1), default timeouts x"
              << k_cpu_timeout_scale << "; large shapes take minutes (--shape 64x1000 is quick)\n";
  }
  set_check_timeouts(s, target.device, o.case_timeout_s, o.timeout_s);
  CheckReport r = run_check(target, s);
  if (!o.record) r.record_note = "not recorded (--no-record)";
  else if (r.verdict == "UNTRUSTED") r.record_note = "not recorded: this device cannot vouch for the verdict";
  else record_check(ws, r);
  return r;
}

}  // namespace kgo::harness
