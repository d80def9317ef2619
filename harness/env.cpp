#include "harness/env.hpp"

#include <cstdlib>
#include <sstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/process.hpp"
#include "core/tools.hpp"
#include "core/workspace.hpp"
#include "harness/python.hpp"

namespace kgo::harness {

namespace fs = std::filesystem;

namespace {

// Prints one JSON line describing torch / triton / CUDA as this interpreter sees them.
constexpr const char* k_probe = R"PY(
import gc, json, sys
gc.disable()  # the probe imports and exits: a collection during torch's import walks all of it, for nothing
r = {"python": sys.executable, "python_version": sys.version.split()[0]}
try:
    import torch
    r["torch"] = torch.__version__
    r["torch_cuda"] = torch.version.cuda or ""
    r["cuda_available"] = bool(torch.cuda.is_available())
    r["device_count"] = torch.cuda.device_count() if r["cuda_available"] else 0
    gpu = int(sys.argv[1])
    if gpu < r["device_count"]:
        r["device_name"] = torch.cuda.get_device_name(gpu)
except Exception as e:
    r["torch_error"] = type(e).__name__ + ": " + str(e)
try:
    import triton
    r["triton"] = triton.__version__
except Exception as e:
    r["triton_error"] = type(e).__name__ + ": " + str(e)
print(json.dumps(r), flush=True)
import os
os._exit(0)  # not the interpreter's teardown of torch's modules: about 0.5 s of CPU
)PY";

std::string first_line_matching(const std::string& text, const std::string& needle) {
  std::stringstream ss(text);
  for (std::string line; std::getline(ss, line);) {
    if (line.find(needle) != std::string::npos) return line;
  }
  return "";
}

std::string last_nonempty_line(const std::string& text) {
  std::stringstream ss(text);
  std::string last;
  for (std::string line; std::getline(ss, line);) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  }
  return last;
}

void add(EnvReport& r, const std::string& name, bool ok, const std::string& detail) {
  r.items.push_back({name, ok, detail});
  if (!ok) r.missing.push_back(name);
}

}  // namespace

ToolInfo find_cuda_tool(const std::string& tool) {
  ToolInfo info;
  std::optional<fs::path> found = core::find_tool(tool);
  if (!found) return info;
  info.path = found->string();
  core::ProcessOptions o;
  o.timeout = std::chrono::seconds(60);
  try {
    core::ProcessResult p = core::run_process({info.path, "--version"}, o);
    std::string text = p.out + "\n" + p.err;
    std::string line = first_line_matching(text, "release");
    if (line.empty()) line = first_line_matching(text, "Version");
    if (line.empty()) line = last_nonempty_line(text);
    info.version = line;
  } catch (const Error&) {
  }
  return info;
}

EnvReport check_env(const EnvOptions& opts) {
  EnvReport r;
  r.checked_at = core::utc_now_iso();
  r.gpu = opts.gpu;
  std::optional<PythonInterpreter> py;
  try {
    py = locate_python(opts.python);
    r.python = py->command + " (" + py->source + ")";
    r.python_path = py->resolved.string();
  } catch (const Error& e) {
    r.python = opts.python.value_or("python3");
    add(r, "Python", false, e.what());
  }
  if (py) {
    core::ProcessOptions o;
    o.timeout = std::chrono::seconds(180);
    core::ProcessResult p = core::run_process({py->resolved.string(), "-c", k_probe, std::to_string(opts.gpu)}, o);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(last_nonempty_line(p.out));
    } catch (const nlohmann::json::exception&) {
      j = nlohmann::json::object();
    }
    if (!j.is_object() || !j.contains("python_version")) {
      add(r, "Python", false,
          fmt::format("{} could not run a probe script ({}): {}", py->resolved.string(),
                      p.timed_out ? "timed out" : "exit " + std::to_string(p.exit_code),
                      last_nonempty_line(p.err)));
    } else {
      r.python_version = j.value("python_version", "");
      r.python_path = j.value("python", r.python_path);
      add(r, "Python", true, r.python_path + " " + r.python_version);
      r.torch_version = j.value("torch", "");
      r.torch_cuda = j.value("torch_cuda", "");
      r.triton_version = j.value("triton", "");
      r.cuda_available = j.value("cuda_available", false);
      r.device_count = j.value("device_count", 0);
      r.torch_device_name = j.value("device_name", "");
      add(r, "torch", !r.torch_version.empty(),
          r.torch_version.empty() ? "import torch failed: " + j.value("torch_error", std::string("?")) +
                                        "; install PyTorch into " + r.python_path
                                  : r.torch_version + (r.torch_cuda.empty() ? " (CPU-only build)"
                                                                            : " (CUDA " + r.torch_cuda + ")"));
      add(r, "triton", !r.triton_version.empty(),
          r.triton_version.empty() ? "import triton failed: " + j.value("triton_error", std::string("?"))
                                   : r.triton_version);
      std::string gpu_detail;
      if (!r.cuda_available) {
        gpu_detail = r.torch_version.empty() ? "unknown: torch is missing"
                     : r.torch_cuda.empty()  ? "no GPU: torch is a CPU-only build"
                                             : "no GPU: torch.cuda.is_available() is False";
      } else if (opts.gpu >= r.device_count) {
        gpu_detail = fmt::format("GPU index {} requested but only {} visible", opts.gpu, r.device_count);
      } else {
        gpu_detail = fmt::format("GPU {}: {} ({} visible)", opts.gpu, r.torch_device_name, r.device_count);
      }
      add(r, "CUDA GPU", r.cuda_available && opts.gpu < r.device_count, gpu_detail);
    }
  }
  r.smi = core::query_nvidia_smi();
  add(r, "nvidia-smi", r.smi.available,
      r.smi.available ? fmt::format("driver {}, CUDA {}", r.smi.gpus.front().driver_version, r.smi.cuda_version)
                      : r.smi.error);
  r.nvcc = find_cuda_tool("nvcc");
  add(r, "nvcc", !r.nvcc.path.empty(),
      r.nvcc.path.empty() ? "nvcc not found in " + core::tool_search_text() + "; install the CUDA toolkit"
                          : r.nvcc.path + ": " + r.nvcc.version);
  r.ncu = find_cuda_tool("ncu");
  add(r, "ncu", !r.ncu.path.empty(),
      r.ncu.path.empty() ? "ncu (Nsight Compute) not found in " + core::tool_search_text() + "; install Nsight Compute"
                         : r.ncu.path + ": " + r.ncu.version);
  if (r.smi.available) {
    for (const auto& g : r.smi.gpus) {
      for (const auto& e : g.clock_events) {
        if (e != "gpu_idle") r.warnings.push_back(fmt::format("GPU {}: clock event active: {}", g.index, e));
      }
    }
  }
  return r;
}

std::string render_env_markdown(const EnvReport& r) {
  std::string md = "# Environment Check\n\n";
  md += fmt::format("- Checked at: {}\n- Result: **{}**\n", r.checked_at,
                    r.ready() ? "READY" : "NOT READY");
  if (!r.ready()) {
    std::string m;
    for (const auto& x : r.missing) m += (m.empty() ? "" : ", ") + x;
    md += "- Missing: " + m + "\n";
  }
  md += "\n## Requirements\n\n| Requirement | Status | Detail |\n|---|---|---|\n";
  for (const auto& i : r.items) {
    md += fmt::format("| {} | {} | {} |\n", i.name, i.ok ? "ok" : "missing", i.detail);
  }
  md += "\n## Software\n\n";
  md += fmt::format("- Python: {} {} ({})\n", r.python_path.empty() ? r.python : r.python_path,
                    r.python_version, r.python);
  md += fmt::format("- torch: {} (built with CUDA {})\n", r.torch_version.empty() ? "missing" : r.torch_version,
                    r.torch_cuda.empty() ? "none" : r.torch_cuda);
  md += fmt::format("- triton: {}\n", r.triton_version.empty() ? "missing" : r.triton_version);
  md += fmt::format("- nvcc: {}\n", r.nvcc.path.empty() ? "missing" : r.nvcc.path + " — " + r.nvcc.version);
  md += fmt::format("- ncu: {}\n", r.ncu.path.empty() ? "missing" : r.ncu.path + " — " + r.ncu.version);
  md += "\n## GPU\n\n";
  if (!r.smi.available) {
    md += "No GPU: " + r.smi.error + "\n";
  } else {
    md += fmt::format("- Driver: {}; driver CUDA version: {}\n", r.smi.gpus.front().driver_version,
                      r.smi.cuda_version.empty() ? "?" : r.smi.cuda_version);
    md += "\n| Index | Name | CC | Clocks | Temp (C) | Power (W) |\n|---|---|---|---|---|---|\n";
    for (const auto& g : r.smi.gpus) {
      md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", g.index, g.name, g.compute_cap, core::clocks_text(g),
                        g.temperature_c ? fmt::format("{:.0f}", *g.temperature_c) : "?",
                        g.power_w ? fmt::format("{:.0f}", *g.power_w) : "?");
    }
  }
  if (!r.warnings.empty()) {
    md += "\n## Warnings\n\n";
    for (const auto& w : r.warnings) md += "- " + w + "\n";
  }
  return md;
}

nlohmann::json to_json(const EnvReport& r) {
  nlohmann::json items = nlohmann::json::array();
  for (const auto& i : r.items) items.push_back({{"name", i.name}, {"ok", i.ok}, {"detail", i.detail}});
  auto tool = [](const ToolInfo& t) {
    return nlohmann::json{{"path", t.path.empty() ? nlohmann::json() : nlohmann::json(t.path)},
                          {"version", t.version}};
  };
  return {{"ready", r.ready()},
          {"missing", r.missing},
          {"checked_at", r.checked_at},
          {"items", items},
          {"python", {{"command", r.python}, {"path", r.python_path}, {"version", r.python_version}}},
          {"torch", {{"version", r.torch_version}, {"cuda", r.torch_cuda},
                     {"cuda_available", r.cuda_available}, {"device_count", r.device_count}}},
          {"triton", r.triton_version},
          {"nvcc", tool(r.nvcc)},
          {"ncu", tool(r.ncu)},
          {"gpu_index", r.gpu},
          {"nvidia_smi", to_json(r.smi)},
          {"warnings", r.warnings}};
}

}  // namespace kgo::harness
