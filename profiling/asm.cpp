#include "profiling/asm.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/memory.hpp"
#include "core/process.hpp"
#include "core/tools.hpp"
#include "core/txn.hpp"
#include "core/workspace.hpp"
#include "core/gpu_info.hpp"
#include "profiling/asm_sources.hpp"
#include "profiling/runner.hpp"

namespace kgo::profiling {

namespace fs = std::filesystem;

IsaCounts merge_counts(const std::vector<IsaCounts>& parts, const std::string& format) {
  IsaCounts m;
  m.format = format;
  for (const auto& p : parts) {
    m.instructions += p.instructions;
    for (const auto& [k, v] : p.counts) m.counts[k] += v;
    for (const auto& [k, v] : p.mnemonics) m.mnemonics[k] += v;
  }
  return m;
}

namespace {

// The checks of the counts: SASS (else AMD GCN) as the machine code, PTX beside it.
void evaluate(AsmResult& r) {
  std::vector<IsaCounts> sass, ptx, amd;
  for (const auto& k : r.kernels) {
    if (k.sass) sass.push_back(*k.sass);
    if (k.ptx) ptx.push_back(*k.ptx);
    if (k.amdgcn) amd.push_back(*k.amdgcn);
  }
  std::optional<IsaCounts> machine, ptx_all;
  if (!sass.empty()) machine = merge_counts(sass, "sass");
  else if (!amd.empty()) machine = merge_counts(amd, "amdgcn");
  if (!ptx.empty()) ptx_all = merge_counts(ptx, "ptx");
  r.checks = evaluate_isa(r.arch, r.matmul_like, machine ? &*machine : nullptr, ptx_all ? &*ptx_all : nullptr,
                          r.resources);
}

// profiles/v<N>/asm/: the texts, asm_summary.md, asm.json; then the record's isa_metric_progress.
void write_asm(const fs::path& ws, const AsmTexts& texts, AsmResult& r) {
  core::LockedWorkspace lock(ws);
  fs::path dir = ws / "profiles" / core::version_name(r.version) / "asm";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error("cannot create " + dir.string() + ": " + ec.message(), ExitCode::not_writable);
  auto rel = [&](const std::string& name) {
    return (fs::path("profiles") / core::version_name(r.version) / "asm" / name).string();
  };
  for (const auto& [name, text] : texts) {
    core::write_file_atomic(dir / name, text);
    r.files.push_back(rel(name));
  }
  core::write_file_atomic(dir / "asm_summary.md", render_markdown(r));
  r.files.push_back(rel("asm_summary.md"));
  core::write_file_atomic(dir / "asm.json", to_json(r).dump(2) + "\n");
  r.files.push_back(rel("asm.json"));
  nlohmann::json progress = nlohmann::json::array();
  for (const auto& c : r.checks) progress.push_back(progress_entry(c));
  r.record_note = update_record_field(ws, r.version, "isa_metric_progress", progress);
}

}  // namespace

AsmResult run_asm(const fs::path& ws, const AsmOptions& o) {
  AsmResult r;
  r.workspace = ws;
  core::WorkspaceConfig cfg = core::load_config(ws);
  r.version = choose_version(ws, o.version);
  r.arch = cfg.arch;
  fs::path kernel = ws / cfg.kernel_file;
  r.matmul_like = matmul_kernel(ws, kernel, o.matmul, &r.matmul_why);
  ScratchDir scratch{core::make_temp_dir(fs::temp_directory_path(), "kgo-asm-")};
  AsmTexts texts;
  if (!o.files.empty()) {
    read_saved_files(o.files, r);
  } else if (cfg.framework == "cuda" || kernel.extension() == ".cu") {
    compile_cuda(kernel, o.arch, cfg.arch, scratch.dir, o.timeout_s, r, texts);
  } else {
    read_triton_cache(harness::workspace_target(ws, cfg, o.target), scratch.dir, o.timeout_s, r, texts);
  }
  evaluate(r);
  write_asm(ws, texts, r);
  return r;
}

}  // namespace kgo::profiling
