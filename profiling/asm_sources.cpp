#include "profiling/asm_sources.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/process.hpp"
#include "core/tools.hpp"
#include "core/gpu_info.hpp"
#include "profiling/isa.hpp"
#include "profiling/runner.hpp"

namespace kgo::profiling {

namespace fs = std::filesystem;

namespace {

// sm_XX for nvcc: --arch, else the GPU's compute capability, else the workspace's family.
std::string sm_arch(const std::optional<std::string>& flag, const std::string& family) {
  if (flag) return flag->rfind("sm_", 0) == 0 ? *flag : "sm_" + *flag;
  auto smi = core::query_nvidia_smi();
  if (smi.available && !smi.gpus.empty()) {
    std::string digits;
    for (char c : smi.gpus[0].compute_cap) {
      if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
    }
    if (!digits.empty()) return "sm_" + digits;
  }
  static const std::map<std::string, std::string> family_sm = {
      {"Volta", "sm_70"}, {"Turing", "sm_75"}, {"Ampere", "sm_80"},
      {"Ada", "sm_89"},   {"Hopper", "sm_90"}, {"Blackwell", "sm_100"}};
  auto it = family_sm.find(family);
  if (it == family_sm.end()) {
    throw Error("cannot tell which sm_XX to compile for (architecture '" + family + "'); pass --arch sm_XX",
                ExitCode::usage);
  }
  return it->second;
}

// Where Triton's wheel keeps its own cuobjdump / ptxas / nvdisasm.
std::vector<fs::path> triton_tool_dirs(const harness::PythonInterpreter& py) {
  core::ProcessOptions o;
  o.timeout = std::chrono::seconds(60);
  auto r = core::run_process({py.resolved.string(), "-c",
                              "import os, triton.backends.nvidia as n; print(os.path.join(os.path.dirname(n.__file__), 'bin'))"},
                             o);
  if (!r.ok()) return {};
  std::string d = r.out.substr(0, r.out.find('\n'));
  return {fs::path(d)};
}

struct Tools {
  std::optional<fs::path> cuobjdump, nvdisasm, ptxas;
};

Tools nvidia_tools(const std::vector<fs::path>& extra) {
  return {core::find_tool("cuobjdump", extra), core::find_tool("nvdisasm", extra), core::find_tool("ptxas", extra)};
}

// SASS of a cubin (cuobjdump -sass, else nvdisasm); "" when neither tool exists.
std::string disassemble(const fs::path& cubin, const Tools& t, std::vector<std::string>& notes) {
  if (t.cuobjdump) {
    auto r = core::run_process({t.cuobjdump->string(), "-sass", cubin.string()});
    if (r.ok()) return r.out;
    notes.push_back("cuobjdump -sass failed: " + r.err.substr(0, 300));
  }
  if (t.nvdisasm) {
    auto r = core::run_process({t.nvdisasm->string(), cubin.string()});
    if (r.ok()) return r.out;
    notes.push_back("nvdisasm failed: " + r.err.substr(0, 300));
  }
  return "";
}

std::vector<ResourceUsage> cubin_resources(const fs::path& cubin, const Tools& t) {
  if (!t.cuobjdump) return {};
  auto r = core::run_process({t.cuobjdump->string(), "--dump-resource-usage", cubin.string()});
  return r.ok() ? parse_cuobjdump_resources(r.out) : std::vector<ResourceUsage>{};
}

void add_text(AsmKernel& k, const std::string& text, const std::string& kind) {
  if (kind == "sass") k.sass = count_sass(text);
  else if (kind == "ptx") k.ptx = count_ptx(text);
  else if (kind == "amdgcn") k.amdgcn = count_amdgcn(text);
}

// One file of the Triton cache: PTX, AMD GCN, a cubin (disassembled) or the kernel's metadata JSON.
void read_cache_file(const fs::path& f, const Tools& tools, AsmKernel& k, AsmResult& r, AsmTexts& texts) {
  std::string ext = f.extension().string(), name = k.name;
  if (ext == ".ptx") {
    std::string text = core::read_file(f);
    add_text(k, text, "ptx");
    texts[name + ".ptx"] = text;
  } else if (ext == ".amdgcn") {
    std::string text = core::read_file(f);
    add_text(k, text, "amdgcn");
    texts[name + ".amdgcn"] = text;
    auto res = parse_amdgcn_resources(text);
    r.resources.insert(r.resources.end(), res.begin(), res.end());
  } else if (ext == ".cubin") {
    std::string sass = disassemble(f, tools, r.notes);
    if (!sass.empty()) {
      add_text(k, sass, "sass");
      texts[name + ".sass"] = sass;
    }
    auto res = cubin_resources(f, tools);
    r.resources.insert(r.resources.end(), res.begin(), res.end());
  } else if (ext == ".json") {
    auto meta = nlohmann::json::parse(core::read_file(f), nullptr, false);
    if (meta.is_object()) {
      texts[name + ".json"] = meta.dump(2) + "\n";
      ResourceUsage m = parse_triton_metadata(meta);
      if (m.shared_bytes || m.registers) r.resources.push_back(m);
    }
  }
}

}  // namespace

void read_saved_files(const std::vector<fs::path>& files, AsmResult& r) {
  r.source = "file";
  for (const auto& f : files) {
    std::string text = core::read_file(f);
    if (text.find("ptxas info") != std::string::npos) {
      auto res = parse_ptxas_report(text);
      r.resources.insert(r.resources.end(), res.begin(), res.end());
      continue;
    }
    if (text.find("REG:") != std::string::npos && text.find("Function") != std::string::npos &&
        text.find("/*0000*/") == std::string::npos) {
      auto res = parse_cuobjdump_resources(text);
      r.resources.insert(r.resources.end(), res.begin(), res.end());
      continue;
    }
    AsmKernel k;
    k.name = f.stem().string();
    IsaCounts c = count_any(text);
    add_text(k, text, c.format);
    if (c.format == "amdgcn") {
      auto res = parse_amdgcn_resources(text);
      r.resources.insert(r.resources.end(), res.begin(), res.end());
    }
    r.kernels.push_back(k);
  }
}

void compile_cuda(const fs::path& kernel, const std::optional<std::string>& arch_flag, const std::string& family,
                  const fs::path& scratch, int timeout_s, AsmResult& r, AsmTexts& texts) {
  r.source = "nvcc";
  auto nvcc = core::find_tool("nvcc");
  if (!nvcc) {
    throw Error("nvcc not found in " + core::tool_search_text() +
                    ": kgo asm compiles kernel.cu with it; install the CUDA toolkit, or pass --file with a saved "
                    "SASS/PTX",
                ExitCode::no_gpu);
  }
  if (!fs::exists(kernel)) throw Error("kernel file " + kernel.string() + " is missing", ExitCode::kernel_missing);
  std::string sm = sm_arch(arch_flag, family);
  fs::path cubin = scratch / "kernel.cubin", ptx = scratch / "kernel.ptx";
  core::ProcessOptions po;
  po.timeout = std::chrono::seconds(timeout_s);
  auto c = core::run_process({nvcc->string(), "-cubin", "-O3", "-arch=" + sm, "-Xptxas", "-v", "-o",
                              cubin.string(), kernel.string()}, po);
  if (!c.ok()) throw Error("nvcc -cubin failed:\n" + c.err.substr(0, 3000), ExitCode::failure);
  r.resources = parse_ptxas_report(c.err + c.out);
  texts["ptxas_report.txt"] = c.err + c.out;
  auto p = core::run_process({nvcc->string(), "-ptx", "-O3", "-arch=" + sm, "-o", ptx.string(), kernel.string()}, po);
  AsmKernel k;
  k.name = kernel.stem().string();
  if (p.ok()) {
    std::string text = core::read_file(ptx);
    add_text(k, text, "ptx");
    texts[k.name + ".ptx"] = text;
  }
  Tools tools = nvidia_tools({});
  std::string sass = disassemble(cubin, tools, r.notes);
  if (!sass.empty()) {
    add_text(k, sass, "sass");
    texts[k.name + ".sass"] = sass;
  } else {
    r.notes.push_back("no cuobjdump or nvdisasm: SASS not read; the targets are checked on PTX");
  }
  r.kernels.push_back(k);
}

void read_triton_cache(const harness::Target& target, const fs::path& scratch, int timeout_s, AsmResult& r,
                       AsmTexts& texts) {
  r.source = "triton cache";
  std::vector<long long> shape = first_shape(target);
  fs::path cache = scratch / "triton_cache";
  fs::create_directories(cache);
  HarnessRun run = run_once(target, shape, {}, {{"TRITON_CACHE_DIR", cache.string()}}, scratch, 0, timeout_s);
  if (!run.result.is_object() || run.result.value("verdict", "") != "PASS") {
    throw Error("the kernel did not run (harness: " +
                    (run.result.is_object() ? run.result.value("message", std::string("no message"))
                                            : "no result; " + run.process.err.substr(0, 1500)) + ")",
                ExitCode::harness_error);
  }
  std::vector<fs::path> extra;
  Tools tools = nvidia_tools({});
  if (!tools.cuobjdump && !tools.nvdisasm) {
    extra = triton_tool_dirs(target.python);
    tools = nvidia_tools(extra);
  }
  std::map<std::string, AsmKernel> by_name;
  std::vector<fs::path> found;
  for (const auto& e : fs::recursive_directory_iterator(cache)) {
    if (e.is_regular_file()) found.push_back(e.path());
  }
  std::sort(found.begin(), found.end());
  for (const auto& f : found) {
    std::string name = f.stem().string();
    if (name.rfind("__grp__", 0) == 0) continue;
    AsmKernel& k = by_name[name];
    k.name = name;
    read_cache_file(f, tools, k, r, texts);
  }
  for (auto& [name, k] : by_name) {
    if (k.sass || k.ptx || k.amdgcn) r.kernels.push_back(k);
  }
  if (r.kernels.empty()) {
    throw Error("the Triton cache " + cache.string() + " held no compiled kernel after the run; is kernel.py a "
                "Triton kernel?", ExitCode::failure);
  }
  if (!tools.cuobjdump && !tools.nvdisasm && r.kernels.front().ptx) {
    r.notes.push_back("no cuobjdump or nvdisasm (in the CUDA tool dirs or Triton's bin): SASS not read; "
                      "the targets are checked on PTX");
  }
}

}  // namespace kgo::profiling
