// `kgo init <name> <kernel-file> --platform P`: create a workspace.
#include <memory>

#include "cli/commands.hpp"
#include "core/init.hpp"
#include "gpu-wiki-index/platform.hpp"

namespace kgo::cli {

namespace {

struct InitOptions {
  core::InitRequest req;
  std::string platform;
  std::string kernel;
  std::optional<std::string> reference, dir, wiki;
};

void run_init(const InitOptions& o, Context& ctx) {
  core::InitRequest req = o.req;
  req.kernel = o.kernel;
  if (o.reference) req.reference = *o.reference;
  if (o.dir) req.dir = *o.dir;
  // Validate what needs no wiki first, so bad input fails fast and names its own problem.
  core::validate_name(req.name);
  wiki::WikiLocation loc = wiki::locate_wiki(o.wiki ? std::optional<std::filesystem::path>(*o.wiki)
                                                    : ctx.wiki);
  wiki::Platform platform = wiki::resolve_platform(o.platform, loc);
  core::ResolvedPlatform rp{o.platform, platform.canonical, platform.arch, loc.root.string(),
                            wiki::wiki_fingerprint(loc.root), loc.embedded};
  core::InitResult r = core::init_workspace(req, rp);
  nlohmann::json j = {{"workspace", r.workspace.string()},
                      {"commit", r.commit},
                      {"config", r.config},
                      {"previous_moved_to", r.previous_moved_to ? nlohmann::json(r.previous_moved_to->string())
                                                                : nlohmann::json()}};
  std::string text = "Created workspace " + r.workspace.string() + "\n  platform " +
                     r.config.platform + " (" + r.config.arch + "), framework " +
                     r.config.framework + ", dtype " + r.config.dtype + "\n  wiki " +
                     r.config.wiki_path + (r.config.wiki_embedded ? " (embedded default)" : "") +
                     "\n  first commit " + r.commit.substr(0, 12) + "\n";
  if (r.previous_moved_to) {
    text += "  the previous workspace was moved to " + r.previous_moved_to->string() + "\n";
  }
  text += "Next: cd " + r.workspace.string() + " && kgo status\n";
  emit(ctx, j, text);
}

}  // namespace

void register_init(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<InitOptions>();
  CLI::App* sub = app.add_subcommand("init", "Create a kernel-optimization workspace (git, README, kgo.json)");
  sub->add_option("name", o->req.name, "Workspace name ([A-Za-z0-9_.-]); makes <dir>/kernel_opt_<name>")->required();
  sub->add_option("kernel", o->kernel, "Kernel file to optimize (copied as kernel.py, or kernel.cu for cuda)")->required();
  sub->add_option("--platform", o->platform, "Target GPU as the wiki names it (H100, H200, MI300X, ...)")->required();
  sub->add_option("--framework", o->req.framework, "triton|cuda|cutedsl|gluon|flydsl")->capture_default_str();
  sub->add_option("--dtype", o->req.dtype, "Data type (fp32, bf16, fp16, fp8, ...)")->capture_default_str();
  sub->add_option("--shape", o->req.shapes, "Problem shape such as 4096x4096 (repeatable)");
  sub->add_option("--reference", o->reference, "PyTorch reference file (copied as ref.py)");
  sub->add_option("--wiki", o->wiki, "gpu-wiki folder (default: $KGO_GPU_WIKI, /tmp/gpu-wiki, embedded)");
  sub->add_option("--dir", o->dir, "Parent directory (default: $KGO_WORKSPACES, else /tmp)");
  sub->add_option("--notes", o->req.notes, "Free-text notes for the README");
  sub->add_flag("--force", o->req.force, "Replace an existing workspace (the old one is moved aside, never deleted)");
  sub->callback([o, &ctx] { run_init(*o, ctx); });
}

}  // namespace kgo::cli
