// `kgo env [--python P] [--gpu N] [--out FILE]`: write env_check.md; exit 0 when ready, 1 naming
// what is missing.
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/workspace.hpp"
#include "harness/env.hpp"

namespace kgo::cli {

namespace {

struct EnvOptions {
  harness::EnvOptions env;
  std::optional<std::string> python, out;
};

std::filesystem::path report_path(const EnvOptions& o, const Context& ctx) {
  if (o.out) return std::filesystem::absolute(*o.out);
  try {
    return core::find_workspace(ctx.workspace) / "env_check.md";
  } catch (const Error&) {
    if (ctx.workspace) throw;  // an explicit --workspace that is not one is an error
    return std::filesystem::current_path() / "env_check.md";
  }
}

void run_env(const EnvOptions& o, Context& ctx) {
  if (o.env.gpu < 0) throw Error("--gpu must be 0 or more", ExitCode::usage);
  std::filesystem::path path = report_path(o, ctx);
  harness::EnvOptions opts = o.env;
  opts.python = o.python;
  harness::EnvReport r = harness::check_env(opts);
  try {
    core::write_file_atomic(path, harness::render_env_markdown(r));
  } catch (const Error& e) {
    throw Error("cannot write " + path.string() + ": " + e.what() + "; pass --out FILE",
                ExitCode::not_writable);
  }
  nlohmann::json j = harness::to_json(r);
  j["report"] = path.string();
  std::string text;
  for (const auto& i : r.items) {
    text += std::string(i.ok ? "  ok       " : "  MISSING  ") + i.name + ": " + i.detail + "\n";
  }
  if (r.smi.available) {
    for (const auto& g : r.smi.gpus) text += "  GPU " + std::to_string(g.index) + ": " + g.name + ", " +
                                             core::clocks_text(g) + "\n";
  } else {
    text += "  no GPU: " + r.smi.error + "\n";
  }
  for (const auto& w : r.warnings) text += "  warning: " + w + "\n";
  text += (r.ready() ? "Environment READY" : "Environment NOT READY") + std::string("; wrote ") +
          path.string() + "\n";
  emit(ctx, j, text);
  if (!r.ready()) {
    std::string missing;
    for (const auto& m : r.missing) missing += (missing.empty() ? "" : ", ") + m;
    std::cerr << "kgo: environment not ready: missing " << missing
              << " (details in " << path.string() << ")\n";
    ctx.exit_code = static_cast<int>(ExitCode::failure);
  }
}

}  // namespace

void register_env(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<EnvOptions>();
  CLI::App* sub = app.add_subcommand("env", "Check GPU, driver, CUDA, torch, triton, nvcc and ncu; write env_check.md");
  add_python_option(sub, o->python);
  sub->add_option("--gpu", o->env.gpu, "GPU index to check")->capture_default_str();
  sub->add_option("--out", o->out, "Report file (default: <workspace>/env_check.md, else ./env_check.md)");
  add_workspace_option(sub, ctx);
  sub->callback([o, &ctx] { run_env(*o, ctx); });
}

}  // namespace kgo::cli
