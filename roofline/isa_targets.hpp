#pragma once
// The ISA optimization targets per vendor and architecture, and the instruction mnemonics each one
// maps to. This is the one table both `kgo roofline` (README "ISA Optimization Targets") and
// `kgo asm` (counting in SASS/PTX/AMDGCN) use. Targets are counts, never invented thresholds.
#include <optional>
#include <string>
#include <vector>

namespace kgo::roofline {

enum class IsaGoal {
  present,  // at least one `wanted` instruction; every `narrower` one is counted and listed
  absent,   // zero `forbidden` instructions (and the compiler's spill counters at 0)
};

enum class IsaScope {
  all_ops,      // every kernel
  matmul_like,  // matmul, bmm, attention (and custom kernels doing matrix products)
};

struct IsaTarget {
  std::string id;                     // stable key, e.g. "nv_global_load_128"
  std::string vendor;                 // "nvidia" or "amd"
  std::vector<std::string> archs;     // architectures it applies to; empty = every arch of the vendor
  IsaScope scope = IsaScope::all_ops;
  IsaGoal goal = IsaGoal::present;
  std::string title;                  // "128-bit global loads"
  std::string check;                  // how the count decides it, in words
  // ECMAScript regexes matched against an instruction's mnemonic (opcode with its modifiers,
  // e.g. "LDG.E.128.CONSTANT", "ld.global.nc.v4.f32", "buffer_load_dwordx4").
  std::vector<std::string> wanted;    // machine ISA (SASS / AMDGCN)
  std::vector<std::string> wanted_ptx;
  std::vector<std::string> narrower;  // present-goal only: the narrower forms to count
  std::vector<std::string> forbidden; // absent-goal only (machine ISA)
  std::vector<std::string> forbidden_ptx;
  std::vector<std::string> compiler_counters;  // e.g. ptxas "bytes spill stores", ".vgpr_spill_count"
  std::string display;                // the instruction names as shown in the README
};

// The whole table.
const std::vector<IsaTarget>& isa_targets();

// "nvidia", "amd", or nullopt for an architecture the table does not know.
std::optional<std::string> vendor_of_arch(const std::string& arch);

// Targets that apply to `arch`; matmul-scoped ones only when `matmul_like`.
std::vector<const IsaTarget*> targets_for(const std::string& arch, bool matmul_like);

// Targets of `arch` that are matmul-scoped (to list them as "not applicable").
std::vector<const IsaTarget*> matmul_targets_for(const std::string& arch);

}  // namespace kgo::roofline
