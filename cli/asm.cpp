// `kgo asm [vN] [--file F] [--arch sm_XX]`: SASS / PTX / AMD assembly of the kernel, counted against
// the ISA optimization targets; writes isa_metric_progress into the record.
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
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
  add_device_option(sub, o->opts.target.device, "Triton compiles for the GPU only");
  add_run_options(sub, o->opts.target);
  add_kernel_options(sub, o->opts.target);
  add_workspace_option(sub, ctx);
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
