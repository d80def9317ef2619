// `kgo init <name> <kernel-file> --platform P`: create a workspace.
#include <memory>

#include "cli/commands.hpp"
#include "harness/init.hpp"

namespace kgo::cli {

namespace {

constexpr const char* k_contracts_help = R"(
Kernel contracts (detected from the files; --contract NAME overrides; tools/kgo_harness/PROTOCOL.md):
  seed           kernel.py setup(shape=, dtype=, seed=, device=) + run_kernel(**inputs); ref.py reference(**kw)
  op             kernel.py triton_<op>(...) with the torch op's signature (--op); catalog reference
  cuda           kernel.cu extern "C" solve(...): const pointers are inputs (or --inputs/--outputs),
                 buffer sizes --size A=M*K over its int parameters (default: the shape's element count)
  fmh66          setup(N=, D=, seed=, dtype=torch.float32) named dims: --dim N=4096 or --shape mapped
                 in setup's parameter order; ref.py reference(**kw) gets the outputs flattened
  kernelbench    kernel.py class ModelNew + --reference problem.py (Model, get_inputs, get_init_inputs);
                 the problem's module-level integers are its dims (--dim batch_size=16)
  sol-execbench  kernel.py entry (run, or --entry) + --reference definition.json (workload.jsonl beside it
                 is copied too); destination-passing or returning; var axes are the dims
  tritonbench    kernel.py class Operator(BenchmarkOperator): the --entry benchmark method against the
                 baseline=True one, on get_input_iter()'s inputs (--shape K picks the K-th, from 1)
  opus24         triton_<op>_kernel_v<N>.py solve(...) + its test_<op>_kernel.py (beside it, or in tests/,
                 found by kgo init) as the reference: reference(), _test_case_<k>_data() inputs (--dim case=K),
                 its torch.allclose tolerance
  (sol-execbench also takes a solution JSON document as the kernel: its sources are extracted, not run))";

nlohmann::json init_json(const harness::InitReport& r) {
  const core::InitResult& c = r.created;
  return {{"workspace", c.workspace.string()},
          {"commit", c.commit},
          {"config", c.config},
          {"wiki", wiki::to_json(r.wiki)},
          {"previous_moved_to", c.previous_moved_to ? nlohmann::json(c.previous_moved_to->string())
                                                    : nlohmann::json()}};
}

std::string init_text(const harness::InitReport& r) {
  const core::InitResult& c = r.created;
  std::string text = "Created workspace " + c.workspace.string() + "\n  platform " + c.config.platform + " (" +
                     c.config.arch + "), framework " + c.config.framework + ", dtype " + c.config.dtype +
                     "\n  gpu-wiki: " + wiki::describe(r.wiki) +
                     (c.config.wiki_embedded ? " (embedded default)" : "") + "\n  first commit " +
                     c.commit.substr(0, 12) + "\n";
  if (c.previous_moved_to) {
    text += "  the previous workspace was moved to " + c.previous_moved_to->string() + "\n";
  }
  return text + "Next: cd " + c.workspace.string() + " && kgo status\n";
}

}  // namespace

void register_init(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<harness::InitOptions>();
  CLI::App* sub = app.add_subcommand("init", "Create a kernel-optimization workspace (git, README, kgo.json)");
  sub->footer(k_contracts_help);
  sub->add_option("name", o->req.name, "Workspace name ([A-Za-z0-9_.-]); makes <dir>/kernel_opt_<name>")->required();
  sub->add_option("kernel", o->req.kernel, "Kernel file to optimize (copied as kernel.py, or kernel.cu for cuda)")->required();
  sub->add_option("--platform", o->platform, "Target GPU as the wiki names it (H100, H200, MI300X, ...)")->required();
  CLI::Option* framework = sub->add_option("--framework", o->req.framework, "triton|cuda|cutedsl|gluon|flydsl (a .cu kernel implies cuda)")->capture_default_str();
  sub->add_option("--dtype", o->req.dtype, "Data type (fp32, bf16, fp16, fp8, ...)")->capture_default_str();
  sub->add_option("--shape", o->req.shapes, "Problem shape such as 4096x4096 (repeatable)");
  sub->add_option("--reference", o->req.reference, "PyTorch reference file (copied as ref.py)");
  sub->add_option("--wiki", o->wiki, "gpu-wiki folder (default: $KGO_GPU_WIKI, /tmp/gpu-wiki, embedded)");
  sub->add_option("--dir", o->req.dir, "Parent directory (default: $KGO_WORKSPACES, else /tmp)");
  sub->add_option("--notes", o->req.notes, "Free-text notes for the README");
  sub->add_option("--max-iterations", o->req.max_iterations,
                  "Iterations after which `kgo next` ends a run short of its targets")
      ->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--contract", o->contract.name, "How to read the kernel files (default: detected; see below)");
  sub->add_option("--dim", o->contract.dims, "Named problem dim NAME=VALUE (fmh66, kernelbench, sol-execbench; repeatable)");
  sub->add_option("--inputs", o->contract.inputs, "CUDA solve(): input pointers, comma-separated (else its const pointers)");
  sub->add_option("--outputs", o->contract.outputs, "CUDA solve(): output pointers, comma-separated");
  sub->add_option("--size", o->contract.sizes, "CUDA solve(): buffer elements NAME=EXPR of its int parameters, e.g. A=M*K (repeatable)");
  sub->add_flag("--force", o->req.force, "Replace an existing workspace (the old one is moved aside, never deleted)");
  sub->callback([o, framework, &ctx] {
    o->framework_given = framework->count() > 0;
    harness::InitReport r = harness::init_workspace(*o, ctx.wiki);
    emit(ctx, init_json(r), init_text(r));
  });
}

}  // namespace kgo::cli
