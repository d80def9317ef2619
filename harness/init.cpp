#include "harness/init.hpp"

#include "core/error.hpp"
#include "gpu-wiki-index/platform.hpp"

namespace kgo::harness {

void infer_framework(InitOptions& o) {
  const std::string ext = o.req.kernel.extension().string();
  if (ext != ".cu" && ext != ".cuh") return;
  if (o.framework_given && o.req.framework != "cuda") {
    throw Error(o.req.kernel.string() + " is CUDA source but --framework is " + o.req.framework +
                    "; drop --framework (a .cu file implies cuda) or pass --framework cuda",
                ExitCode::usage);
  }
  o.req.framework = "cuda";
}

InitReport init_workspace(InitOptions o, const std::optional<std::filesystem::path>& default_wiki) {
  infer_framework(o);
  o.req.contract = contract_spec(o.contract);
  // Validate what needs no wiki first, so bad input fails fast and names its own problem.
  core::validate_name(o.req.name);
  wiki::WikiLocation loc = wiki::locate_wiki(o.wiki ? o.wiki : default_wiki);
  wiki::Platform platform = wiki::resolve_platform(o.platform, loc);
  InitReport r;
  r.wiki = wiki::identify_wiki(loc);
  core::ResolvedPlatform rp{o.platform,        platform.canonical, platform.arch,
                            loc.root.string(), r.wiki.fingerprint, loc.embedded};
  r.created = core::init_workspace(o.req, rp);
  return r;
}

}  // namespace kgo::harness
