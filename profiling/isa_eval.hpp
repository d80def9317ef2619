#pragma once
// Evaluates the ISA optimization targets of roofline/isa_targets.hpp (the one table kgo keeps)
// on a kernel's instruction counts and compiler report; the result feeds `kgo asm` and the
// record's `isa_metric_progress` ({metric, target, current, met}).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "profiling/isa.hpp"

namespace kgo::profiling {

struct IsaCheck {
  std::string id;        // roofline target id, e.g. "nv_global_load_128"
  std::string title;     // "128-bit global loads"
  std::string display;   // instruction names as the README shows them
  std::string goal;      // "present" or "absent"
  std::string target;    // ">= 1 LDG.E.128 ..." / "0 LDL / STL ..."
  std::string basis;     // "sass", "amdgcn", "ptx" or "" (nothing to count with)
  std::optional<int> current;  // wanted count (present) / forbidden count (absent)
  std::optional<bool> met;
  int narrower = 0;                          // present goal: narrower forms seen
  std::map<std::string, int> matched;        // mnemonic -> count behind `current`
  std::map<std::string, int> narrower_seen;  // mnemonic -> count of narrower forms
  std::optional<int> spill_counter;          // compiler-reported spill bytes / counts (absent goal)
};

// `machine`: SASS or AMDGCN counts when available; `ptx`: PTX counts when available. Machine ISA
// wins; PTX patterns are used only when no machine ISA was read.
std::vector<IsaCheck> evaluate_isa(const std::string& arch, bool matmul_like, const IsaCounts* machine,
                                   const IsaCounts* ptx, const std::vector<ResourceUsage>& resources);

nlohmann::json to_json(const IsaCheck& c);
// The record form: {"metric": id, "target": text, "current": n|null, "met": bool|null}.
nlohmann::json progress_entry(const IsaCheck& c);

}  // namespace kgo::profiling
