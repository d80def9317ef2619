#pragma once
// `kgo asm`: the kernel's SASS / PTX (AMD: GCN assembly), from a fresh per-run Triton cache
// (TRITON_CACHE_DIR) or, for kernel.cu, from nvcc -cubin / -ptx with -Xptxas -v; instruction counts
// against the ISA optimization targets; registers, shared memory and spills from the compiler
// report; the record's isa_metric_progress. `--file` reads a saved disassembly instead.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/target.hpp"
#include "profiling/isa.hpp"
#include "profiling/isa_eval.hpp"

namespace kgo::profiling {

struct AsmOptions {
  std::optional<std::string> version;
  std::vector<std::filesystem::path> files;  // --file: SASS / PTX / AMDGCN / ptxas report text
  std::optional<std::string> arch;           // --arch sm_90 (CUDA builds); default: the GPU's, else the workspace's family
  std::optional<bool> matmul;                // --matmul / --no-matmul
  int timeout_s = 300;
  harness::TargetOptions target;
};

struct AsmKernel {
  std::string name;
  std::optional<IsaCounts> sass, ptx, amdgcn;
  std::vector<std::string> files;  // written, workspace-relative
};

struct AsmResult {
  std::filesystem::path workspace;
  int version = 0;
  std::string source;                   // "triton cache", "nvcc", "file"
  std::string arch;                     // family used for the targets ("Hopper")
  bool matmul_like = false;
  std::string matmul_why;
  std::vector<AsmKernel> kernels;
  std::vector<ResourceUsage> resources;
  std::vector<IsaCheck> checks;
  std::vector<std::string> notes;       // e.g. "cuobjdump not found: SASS not read, PTX counted"
  std::vector<std::string> files;
  std::string record_note;              // "" when isa_metric_progress was written
};

AsmResult run_asm(const std::filesystem::path& workspace, const AsmOptions& opts);

// Sums per-kernel counts of one format into one (all kernels of the workspace file).
IsaCounts merge_counts(const std::vector<IsaCounts>& parts, const std::string& format);

nlohmann::json to_json(const AsmResult& r);
std::string render_text(const AsmResult& r);
// asm_summary.md in profiles/v<N>/.
std::string render_markdown(const AsmResult& r);

}  // namespace kgo::profiling
