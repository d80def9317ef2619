// The seed's code-string tools (opus24/mcp-for-triton-kernel: run_triton_kernel(code, test_input_code),
// validate_correctness(kernel_code, reference_code, test_input_code, rtol, atol), benchmark_kernel(
// kernel_code, test_input_code, reference_code, warmup, rep)). The server only writes the strings into
// a scratch workspace as a KernelBench pair (the kernel's ModelNew calls its `solve`, the problem's
// Model calls `reference` on the inputs test_input_code makes as `args`/`kwargs`); kgo init and kgo
// check / bench judge it as children, like every other kernel. Nothing of it runs in the server.
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <set>

#include "mcp/mcp.hpp"
#include "core/error.hpp"
#include "core/files.hpp"

namespace kgo::mcp {

namespace {

namespace fs = std::filesystem;

std::string text_arg(const json& args, const char* name, bool required) {
  if (!args.contains(name) || args[name].is_null()) {
    if (required) throw Error(std::string("argument '") + name + "' is required", ExitCode::usage);
    return "";
  }
  if (!args[name].is_string()) throw Error(std::string("argument '") + name + "' must be a string", ExitCode::usage);
  return args[name].get<std::string>();
}

// A Python string literal holding `s` (a JSON string is one).
std::string py_literal(const std::string& s) { return json(s).dump(); }

// The test inputs as the seed's server takes them: `args` and `kwargs` of test_input_code. Where no
// CUDA device exists, its 'cuda' devices are read as the CPU (the Triton interpreter runs there).
const char* k_inputs_helper = R"py(
import re as _kgo_re
import torch as _kgo_torch


def _kgo_test_inputs():
    code = _KGO_TEST_INPUT_CODE
    if not _kgo_torch.cuda.is_available():
        code = _kgo_re.sub(r"""(['"])cuda(:\d+)?\1""", "'cpu'", code).replace(".cuda()", ".cpu()")
    ns = {"torch": _kgo_torch}
    exec(code, ns)
    args, kwargs = list(ns.get("args", [])), dict(ns.get("kwargs", {}))
    if any(isinstance(v, _kgo_torch.Tensor) for v in kwargs.values()):
        raise TypeError("test_input_code's kwargs holds tensors; pass tensors in args")
    return args, kwargs
)py";

std::string kernel_file(const std::string& code, const std::string& entry) {
  return "# Written by kgo mcp from a seed tool's kernel code, then a ModelNew that calls `" + entry + "`.\n" + code +
         "\n\n\nimport torch as _kgo_torch\n\n\nclass ModelNew(_kgo_torch.nn.Module):\n"
         "    def __init__(self, *init):\n        super().__init__()\n"
         "        self._kgo_kwargs = dict(zip(init[0::2], init[1::2]))\n\n"
         "    def forward(self, *args):\n        return " + entry + "(*args, **self._kgo_kwargs)\n";
}

// The problem: `reference` from reference_code, or (none given) the kernel's own entry, so that the
// check runs the kernel and compares it with itself.
std::string problem_file(const std::string& reference_code, const std::string& kernel_code, const std::string& entry,
                         const std::string& inputs) {
  std::string body = reference_code.empty() ? kernel_code + "\n\nreference = " + entry + "\n" : reference_code;
  return "# Written by kgo mcp from a seed tool's " +
         std::string(reference_code.empty() ? "kernel code (no reference_code: the kernel is its own reference)"
                                            : "reference_code") +
         " and test_input_code.\n" + body + "\n\n_KGO_TEST_INPUT_CODE = " + py_literal(inputs) + "\n" +
         k_inputs_helper +
         "\n\nclass Model(_kgo_torch.nn.Module):\n"
         "    def __init__(self, *init):\n        super().__init__()\n"
         "        self._kgo_kwargs = dict(zip(init[0::2], init[1::2]))\n\n"
         "    def forward(self, *args):\n        return reference(*args, **self._kgo_kwargs)\n\n\n"
         "def get_inputs():\n    return _kgo_test_inputs()[0]\n\n\n"
         "def get_init_inputs():\n    return [x for kv in _kgo_test_inputs()[1].items() for x in kv]\n";
}

// The data type the inputs are made in, so that kgo does not cast them to fp32.
std::string dtype_of(const std::string& inputs) {
  if (inputs.find("bfloat16") != std::string::npos) return "bf16";
  if (inputs.find("float16") != std::string::npos || inputs.find(".half()") != std::string::npos) return "fp16";
  if (inputs.find("float64") != std::string::npos || inputs.find(".double()") != std::string::npos) return "fp64";
  return "fp32";
}

fs::path scratch_dir() {
  static std::atomic<int> counter{0};
  const char* tmp = std::getenv("TMPDIR");
  fs::path dir = fs::path(tmp && *tmp ? tmp : "/tmp") /
                 ("kgo-mcp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string number(const json& args, const char* name) {
  if (!args[name].is_number()) throw Error(std::string("argument '") + name + "' must be a number", ExitCode::usage);
  return args[name].dump();
}

}  // namespace

bool seed_call(const json& args) {
  return args.is_object() && (args.contains("code") || args.contains("kernel_code") || args.contains("test_input_code"));
}

SeedChain seed_chain(const std::string& kind, const json& args, const ServerOptions& o) {
  static const std::map<std::string, std::set<std::string>> k_known = {
      {"run", {"code", "kernel_code", "test_input_code", "entry_function", "device"}},
      {"validate", {"code", "kernel_code", "reference_code", "test_input_code", "rtol", "atol", "entry_function", "device"}},
      {"benchmark", {"code", "kernel_code", "reference_code", "test_input_code", "warmup", "rep", "entry_function", "device"}}};
  for (const auto& [k, v] : args.items()) {
    if (!k_known.at(kind).count(k)) {
      std::string names;
      for (const auto& n : k_known.at(kind)) names += (names.empty() ? "" : ", ") + n;
      throw Error("unknown argument '" + k + "' with the seed's code-string arguments; they are: " + names, ExitCode::usage);
    }
  }
  std::string code = text_arg(args, "code", false);
  if (code.empty()) code = text_arg(args, "kernel_code", false);
  if (code.empty()) throw Error("argument 'kernel_code' (or 'code') is required: the Triton kernel with its entry function", ExitCode::usage);
  std::string inputs = text_arg(args, "test_input_code", true);
  std::string reference = kind == "run" ? "" : text_arg(args, "reference_code", kind == "validate");
  std::string entry = text_arg(args, "entry_function", false);
  if (entry.empty()) entry = "solve";
  std::string device = text_arg(args, "device", false);

  SeedChain c;
  c.scratch = scratch_dir();
  core::write_file_atomic(c.scratch / "kernel.py", kernel_file(code, entry));
  core::write_file_atomic(c.scratch / "problem.py", problem_file(reference, code, entry, inputs));
  fs::path ws = c.scratch / "kernel_opt_seed";
  std::vector<std::string> init = {"init", "seed", (c.scratch / "kernel.py").string(),
                                   "--reference=" + (c.scratch / "problem.py").string(), "--platform=" + o.seed_platform,
                                   "--contract=kernelbench", "--dtype=" + dtype_of(inputs), "--dir=" + c.scratch.string()};
  if (o.wiki) init.push_back("--wiki=" + o.wiki->string());
  c.steps.push_back(init);
  std::vector<std::string> judge;
  if (kind == "benchmark") {
    judge = {"bench", "--no-record", "--workspace=" + ws.string()};
    if (args.contains("warmup")) judge.push_back("--warmup=" + number(args, "warmup"));
    if (args.contains("rep")) judge.push_back("--runs=" + number(args, "rep"));
  } else {
    judge = {"check", "--no-record", "--workspace=" + ws.string()};
    if (kind == "run") judge.insert(judge.end(), {"--trials=1", "--no-edge-shapes"});
    if (args.contains("rtol")) judge.push_back("--rtol=" + number(args, "rtol"));
    if (args.contains("atol")) judge.push_back("--atol=" + number(args, "atol"));
  }
  if (!device.empty()) judge.push_back("--device=" + device);
  c.steps.push_back(judge);
  return c;
}

}  // namespace kgo::mcp
