#pragma once
// Where `kgo asm` gets its assembly (asm.cpp): saved files (--file), nvcc on a kernel.cu, or the Triton
// cache of one run of the kernel. Each fills the result's kernels (with their counts), resources, notes
// and source, and the texts to keep under profiles/v<N>/asm/.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/target.hpp"
#include "profiling/asm.hpp"

namespace kgo::profiling {

using AsmTexts = std::map<std::string, std::string>;  // output file name -> content

// Saved SASS / PTX / AMD GCN, ptxas -v reports and cuobjdump resource dumps, told apart by their text.
void read_saved_files(const std::vector<std::filesystem::path>& files, AsmResult& r);

// nvcc -cubin (with -Xptxas -v) and -ptx of `kernel` for --arch, else the GPU's, else the family's sm_XX;
// SASS from the cubin when cuobjdump or nvdisasm is found. Throws no_gpu without nvcc.
void compile_cuda(const std::filesystem::path& kernel, const std::optional<std::string>& arch_flag,
                  const std::string& family, const std::filesystem::path& scratch, int timeout_s, AsmResult& r,
                  AsmTexts& texts);

// Runs the kernel once with its own TRITON_CACHE_DIR and reads what Triton compiled there.
void read_triton_cache(const harness::Target& target, const std::filesystem::path& scratch, int timeout_s,
                       AsmResult& r, AsmTexts& texts);

}  // namespace kgo::profiling
