#pragma once
// Instruction counts from disassembly (NVIDIA SASS, PTX, AMD GCN/CDNA assembly) and resource
// usage from compiler reports (ptxas -v, cuobjdump --dump-resource-usage, AMD kernel metadata,
// Triton's metadata json). Pure text functions; nothing here runs a tool.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kgo::profiling {

struct IsaCounts {
  std::string format;                 // "sass", "ptx" or "amdgcn"
  int instructions = 0;               // every instruction line seen
  std::map<std::string, int> counts;     // category -> count (see below)
  std::map<std::string, int> mnemonics;  // opcode with modifiers ("LDG.E.128", "ld.global.v4.b32") -> count
  int get(const std::string& category) const;
};

// "sass": lines of cuobjdump -sass / nvdisasm ("/*0090*/  @P0 LDG.E.128 R4, desc[UR4][R2.64] ;").
// Categories: global_load_{128,64,32,narrow}, global_store_{128,64,32,narrow}, hgmma, hmma,
// local_load (LDL), local_store (STL), ldgsts, tma, barrier, shared_load, shared_store, ldsm,
// ffma, mufu.
IsaCounts count_sass(std::string_view text);
// PTX: the same categories from ld.global/st.global widths, wgmma/mma, ld/st.local, cp.async,
// cp.async.bulk, bar/barrier, ld/st.shared, ldmatrix, fma.rn.f32, ex2/rsqrt/...
IsaCounts count_ptx(std::string_view text);
// AMD: buffer_load_dwordx4, buffer_load_narrow, global_load_dwordx4, global_load_narrow,
// scratch (scratch_* and buffer scratch spills), mfma, lds_read_b128, barrier.
IsaCounts count_amdgcn(std::string_view text);
// Picks the counter by content ("/*0000*/" -> sass, ".version"/".entry" -> ptx, "s_endpgm" -> amdgcn).
IsaCounts count_any(std::string_view text);

struct ResourceUsage {
  std::string kernel;
  std::optional<int> registers;         // per thread (VGPRs on AMD)
  std::optional<int> shared_bytes;      // static shared memory / LDS
  std::optional<int> stack_bytes;       // stack frame / private segment
  std::optional<int> spill_store_bytes;
  std::optional<int> spill_load_bytes;
  std::optional<int> spill_count;       // AMD .vgpr_spill_count (+ .sgpr_spill_count)
  std::optional<int> local_bytes;       // cuobjdump LOCAL: local memory per thread (spills, arrays)
  std::optional<int> barriers;
  std::string source;                   // "ptxas -v", "cuobjdump --dump-resource-usage", ...
};

// `ptxas -v` / `nvcc -Xptxas -v` output: one entry per compiled entry function.
std::vector<ResourceUsage> parse_ptxas_report(std::string_view text);
// `cuobjdump --dump-resource-usage`: "Function NAME:" then "REG:26 STACK:0 SHARED:0 LOCAL:0 ...".
std::vector<ResourceUsage> parse_cuobjdump_resources(std::string_view text);
// AMD code object metadata in .amdgcn text: .vgpr_count, .sgpr_count, .vgpr_spill_count,
// .group_segment_fixed_size, .private_segment_fixed_size.
std::vector<ResourceUsage> parse_amdgcn_resources(std::string_view text);
// Triton's <kernel>.json metadata: name, shared (bytes), num_warps; n_regs / n_spills if present.
ResourceUsage parse_triton_metadata(const nlohmann::json& meta);

nlohmann::json to_json(const IsaCounts& c);
nlohmann::json to_json(const ResourceUsage& r);

}  // namespace kgo::profiling
