#include "gpu-wiki-index/wiki_location.hpp"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/resources.hpp"

namespace kgo::wiki {

namespace fs = std::filesystem;

namespace {

WikiLocation checked(const fs::path& dir, const std::string& source) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw Error("gpu-wiki " + dir.string() + " (from " + source +
                    ") is not a directory; pass --wiki DIR naming a gpu-wiki folder",
                ExitCode::wiki_error);
  }
  return WikiLocation{fs::canonical(dir, ec), false, source};
}

}  // namespace

WikiLocation locate_wiki(const std::optional<fs::path>& explicit_dir) {
  if (explicit_dir) return checked(*explicit_dir, "--wiki");
  if (const char* env = std::getenv("KGO_GPU_WIKI"); env && *env) {
    return checked(env, "KGO_GPU_WIKI");
  }
  std::error_code ec;
  if (fs::is_directory("/tmp/gpu-wiki", ec)) return checked("/tmp/gpu-wiki", "/tmp/gpu-wiki");
  WikiLocation loc = checked(core::data_dir() / "gpu-wiki-index" / "wiki", "embedded");
  loc.embedded = true;
  return loc;
}

}  // namespace kgo::wiki
