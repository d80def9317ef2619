#pragma once
// `kgo check` on a workspace: its target, the timeouts for the device, the committed-reference guard,
// the check, and the record (unless told not to, or the device cannot vouch for the verdict).
#include <filesystem>
#include <optional>

#include "harness/check.hpp"
#include "harness/target.hpp"

namespace kgo::harness {

struct CheckWorkspaceOptions {
  TargetOptions target;
  CheckSettings settings;                          // its timeouts are the defaults before scaling
  std::optional<double> case_timeout_s, timeout_s;  // --case-timeout / --timeout: used as given
  bool record = true;                              // false: --no-record
};

// Timeouts for `device`: the given seconds, else `s`'s defaults times k_cpu_timeout_scale on cpu.
void set_check_timeouts(CheckSettings& s, const std::string& device, std::optional<double> case_timeout_s,
                        std::optional<double> timeout_s);

// The report, recorded into the workspace's current record when `record` (its record_note says why
// not otherwise). With settings.progress, says on stderr when it runs on the CPU interpreter.
CheckReport check_workspace(const std::filesystem::path& workspace, const CheckWorkspaceOptions& options);

}  // namespace kgo::harness
