// `kgo asm [vN] [--file F] [--arch sm_XX]`: SASS / PTX / AMD assembly of the kernel, counted against
// the ISA optimization targets; writes isa_metric_progress into the record.
#include <memory>

#include "cli/commands.hpp"
#include "profiling/asm.hpp"

namespace kgo::cli {

namespace {

struct AsmCli {
  std::optional<std::string> version;
  bool matmul = false, no_matmul = false;
  profiling::AsmOptions opts;
};

}  // namespace

void register_asm(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<AsmCli>();
  CLI::App* sub = app.add_subcommand("asm", "Count the kernel's SASS/PTX instructions against the ISA targets");
  sub->add_option("version", o->version, "Record version, e.g. v3 (default: the latest record)");
  sub->add_option("--file", o->opts.files,
                  "Read a saved SASS / PTX / AMDGCN / ptxas -v report instead of compiling (repeatable)")
      ->check(CLI::ExistingFile);
  sub->add_option("--arch", o->opts.arch, "nvcc target for kernel.cu, e.g. sm_90 (default: the GPU's)");
  auto* m = sub->add_flag("--matmul", o->matmul, "Apply the matrix-product targets (tensor cores, async copies)");
  sub->add_flag("--no-matmul", o->no_matmul, "Do not apply the matrix-product targets")->excludes(m);
  sub->add_option("--timeout", o->opts.timeout_s, "Seconds for the compile or the run")->capture_default_str();
  sub->add_option("--shape", o->opts.target.shapes, "Shape to run (default: the workspace's first)");
  sub->add_option("--python", o->opts.target.python, "Python interpreter (default: $KGO_PYTHON, else python3)");
  sub->add_option("--device", o->opts.target.device, "cuda, cpu or auto (Triton compiles for the GPU only)")
      ->capture_default_str();
  sub->add_option("--arg", o->opts.target.args, "Extra setup() argument name=value (repeatable)");
  sub->add_option("--op", o->opts.target.op, "Catalog op for op-mode kernels");
  sub->add_option("--entry", o->opts.target.entry, "Op-mode function name");
  sub->add_option("--dtype", o->opts.target.dtype, "Data type (default: the workspace's)");
  sub->add_option("--workspace", ctx.workspace, "Workspace directory (default: the one holding the cwd)");
  sub->callback([o, &ctx] {
    profiling::AsmOptions opts = o->opts;
    opts.version = o->version;
    if (o->matmul) opts.matmul = true;
    if (o->no_matmul) opts.matmul = false;
    profiling::AsmResult r = profiling::run_asm(workspace_dir(ctx), opts);
    emit(ctx, profiling::to_json(r), profiling::render_text(r));
  });
}

}  // namespace kgo::cli
