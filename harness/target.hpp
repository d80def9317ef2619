#pragma once
// What the harness runs: kernel and reference files, contract, op, dtype, device, shapes and
// `--arg k=v` extras, resolved from a workspace's kgo.json plus command-line overrides.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/workspace.hpp"
#include "harness/python.hpp"

namespace kgo::harness {

// Command-line choices shared by check, bench, baseline and ops.
struct TargetOptions {
  std::vector<std::string> shapes;      // --shape / --size ("4096x4096")
  std::string device = "auto";          // --device cuda|cpu|auto
  std::optional<std::string> python;    // --python
  std::vector<std::string> args;        // --arg k=v
  std::optional<std::string> op;        // --op (default: roofline.json's op, else the kernel's triton_<op>)
  std::optional<std::string> entry;     // --entry (op-mode function name)
  std::optional<std::string> dtype;     // --dtype (default: the workspace's)
  std::optional<std::string> contract;  // --contract (default: kgo.json's, else detected by the harness)
  std::vector<std::string> dims;        // --dim NAME=VALUE
  std::vector<std::string> allow_ops;   // --allow-op NAME: aten ops the kernel may call (not delegation)
  bool unconfined = false;              // --unconfined: judge the kernel even where no cell can confine it
  std::optional<long long> memory_limit_mb;  // --memory-limit MIB (default: the harness's cap)
};

// The contract flags of `kgo init` and `kgo check`/`bench`.
struct ContractFlags {
  std::optional<std::string> name;      // --contract
  std::vector<std::string> dims;        // --dim NAME=VALUE
  std::vector<std::string> inputs, outputs;  // --inputs A,B / --outputs C (CUDA solve pointers)
  std::vector<std::string> sizes;       // --size A=M*K (CUDA buffer elements)
};

// The contract names the harness knows (`--contract`).
const std::vector<std::string>& contract_names();

// {"name", "dims", "inputs", "outputs", "sizes"} from flags, merged over `base` (kgo.json's);
// null when nothing is set. Throws Error(usage) naming a malformed flag.
nlohmann::json contract_spec(const ContractFlags& flags, const nlohmann::json& base = nullptr);

struct Target {
  std::filesystem::path kernel;
  std::optional<std::filesystem::path> reference;
  std::optional<std::filesystem::path> problem;  // seed/fmh66: whose setup() makes the inputs (problem.hpp)
  std::string contract = "auto";        // auto, seed, op, cuda
  std::optional<std::string> op, entry;
  std::string dtype = "fp32";           // kgo's name, as in kgo.json
  std::string torch_dtype = "float32";  // the harness's name
  std::string device = "cpu";           // resolved: cuda or cpu
  nlohmann::json args = nlohmann::json::object();
  std::vector<std::vector<long long>> shapes;
  bool shapes_given = true;             // false: kgo's default sizes, the format may use its own
  bool dtype_given = true;              // false: fp32 by default only; a format's declared dtype (setup) wins
  nlohmann::json contract_spec;         // dims/inputs/outputs/sizes (see contract_spec())
  std::vector<std::string> allow_ops;   // the request's allow_ops
  bool unconfined = false;              // the request's unconfined (recorded with the verdict: the result's cell)
  std::optional<long long> memory_limit_mb;  // the kernel worker's memory cap; unset: the harness default
  PythonInterpreter python;
};

// kgo dtype names ("fp32", "bf16", "fp8") -> torch dtype names; torch names pass through.
// Throws Error(usage) listing the accepted names.
std::string torch_dtype_name(const std::string& dtype);

// "cuda" or "cpu" for --device; "auto" is cuda when nvidia-smi lists a GPU.
std::string resolve_device(const std::string& flag);

// "k=v" pairs -> {"k": "v"}; throws Error(usage) for an entry without '='.
nlohmann::json parse_args(const std::vector<std::string>& kv);

// The op a workspace's roofline was computed for (`roofline.json` "op"), if any.
std::optional<std::string> workspace_op(const std::filesystem::path& workspace);

// The op an op-mode kernel implements, from its one `def triton_<op>(` function; nullopt when
// there is none or several (the harness then needs --op).
std::optional<std::string> infer_op(const std::string& kernel_source);

// The workspace's kernel and reference with the options applied. Throws Error(kernel_missing)
// when the kernel file is absent. Makes the stamp key first when the workspace has none
// (core::ensure_stamp_key): every path that runs the workspace's kernel comes through here.
Target workspace_target(const std::filesystem::path& workspace, const core::WorkspaceConfig& cfg,
                        const TargetOptions& opts);

// The one guard of every verdict path (check, bench, baseline, propose; sweep jobs and MCP tools run
// these as kgo children): workspace_target after refusing (Error(kernel_missing)) a problem file that
// differs from its committed version or from the baseline's (core/problem.hpp).
Target verdict_target(const std::filesystem::path& workspace, const core::WorkspaceConfig& cfg,
                      const TargetOptions& opts);

// The request fields describing the target (kernel, reference, contract, op, entry, dtype,
// device, args, shapes).
// kgo's canonical name for an op name or alias (roofline catalog); other names unchanged.
std::string canonical_op(const std::string& name);
nlohmann::json target_request(const Target& t);

// "4096x4096, 17x4097" for reports.
std::string shapes_text(const std::vector<std::vector<long long>>& shapes);

}  // namespace kgo::harness
