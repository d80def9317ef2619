#include "cli/options.hpp"

#include "core/error.hpp"
#include "harness/bench.hpp"
#include "harness/check.hpp"
#include "harness/check_workspace.hpp"
#include "harness/target.hpp"

namespace kgo::cli {

void add_workspace_option(CLI::App* sub, Context& ctx) {
  sub->add_option("--workspace", ctx.workspace, "Workspace directory (default: the one holding the cwd)");
}

void add_python_option(CLI::App* sub, std::optional<std::string>& python) {
  sub->add_option("--python", python, "Python interpreter (default: $KGO_PYTHON, else python3)");
}

void add_device_option(CLI::App* sub, std::string& device, const std::string& on_cpu) {
  sub->add_option("--device", device, "cuda, cpu (" + on_cpu + ") or auto")->capture_default_str();
}

void add_run_options(CLI::App* sub, harness::TargetOptions& t) {
  add_python_option(sub, t.python);
  sub->add_option("--arg", t.args, "Extra setup() argument name=value (repeatable)");
  sub->add_option("--dtype", t.dtype, "Data type (default: the workspace's, else fp32)");
  sub->add_option("--memory-limit", t.memory_limit_mb,
                  "MiB the kernel's process may allocate (GPU memory on cuda, address space on cpu); over it is CRASH "
                  "(default: half of the GPU's memory on cuda, 16384 MiB on cpu; tools/kgo_harness/PROTOCOL.md)")
      ->check(CLI::PositiveNumber);
}

void add_kernel_options(CLI::App* sub, harness::TargetOptions& t) {
  sub->add_option("--op", t.op, "Catalog op for op-mode kernels (default: roofline.json's op)");
  sub->add_option("--entry", t.entry, "Op-mode function name (default: triton_<op>)");
  sub->add_option("--contract", t.contract,
                  "How to read the kernel files (default: kgo.json's, else detected; see kgo init --help)");
  sub->add_option("--dim", t.dims, "Named problem dim NAME=VALUE for fmh66/KernelBench/SOL-ExecBench files (repeatable)");
  sub->add_option("--allow-op", t.allow_ops,
                  "Aten op NAME (e.g. exp, aten::sum) or vendor library (cublas, cudnn, ...) the kernel may call without it "
                  "counting as delegation (repeatable); "
                  "recorded in the stamp, the accept commit, kgo report and kgo audit");
  sub->add_flag("--unconfined", t.unconfined,
                "Judge the kernel even where this machine allows no cell (namespaces, Landlock) to confine it; "
                "the verdict records it");
}

void add_timing_options(CLI::App* sub, harness::BenchSettings& s) {
  sub->add_option("--runs", s.runs, "Timed runs per size (the minimum)")->capture_default_str();
  sub->add_option("--precision", s.precision_pct,
                  "Then time more until the median's 95% interval is within +-this % (0: exactly --runs)")
      ->capture_default_str();
  sub->add_option("--max-runs", s.max_runs, "Most timed runs per size")->capture_default_str();
}

void add_check_timeouts(CLI::App* sub, CheckTimeouts& t, const std::string& whole) {
  harness::CheckSettings d;
  std::string scale = std::to_string(static_cast<int>(harness::k_cpu_timeout_scale));
  sub->add_option("--case-timeout", t.case_s,
                  "Check seconds per case (default " + std::to_string(static_cast<int>(d.case_timeout_s)) + "; x" +
                      scale + " on --device cpu)");
  sub->add_option("--timeout", t.total_s,
                  "Check seconds " + whole + " (default " + std::to_string(static_cast<int>(d.total_timeout_s)) +
                      "; x" + scale + " on --device cpu)");
}

void CheckTimeouts::require_positive() const {
  if (case_s.value_or(1) <= 0 || total_s.value_or(1) <= 0) {
    throw Error("--case-timeout and --timeout must be positive numbers of seconds", ExitCode::usage);
  }
}

void apply_check_timeouts(const CheckTimeouts& t, const std::string& device, harness::CheckSettings& s) {
  t.require_positive();
  harness::set_check_timeouts(s, device, t.case_s, t.total_s);
}

}  // namespace kgo::cli
