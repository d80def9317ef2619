#include "harness/init.hpp"

#include <regex>

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

void infer_reference(InitOptions& o) {
  namespace fs = std::filesystem;
  if (o.req.reference) return;
  // The layout of opus24/mcp-for-triton-kernel: kernel/triton_<op>_kernel_v<N>.py, tests/test_<op>_kernel.py.
  static const std::regex name_re(R"(^triton_(\w+?)_kernel_v\d+\.py$)");
  std::smatch m;
  const std::string file = o.req.kernel.filename().string();
  if (!std::regex_match(file, m, name_re)) return;
  const fs::path dir = o.req.kernel.parent_path();
  const std::string test = "test_" + m[1].str() + "_kernel.py";
  for (const fs::path& d : {dir, dir / "tests", dir.parent_path() / "tests"}) {
    std::error_code ec;
    if (fs::is_regular_file(d / test, ec)) {
      o.req.reference = d / test;
      return;
    }
  }
}

InitReport init_workspace(InitOptions o, const std::optional<std::filesystem::path>& default_wiki) {
  infer_framework(o);
  infer_reference(o);
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
