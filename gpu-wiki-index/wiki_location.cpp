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

std::string wiki_fingerprint(const fs::path& root) {
  std::vector<std::pair<std::string, fs::path>> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (ec) break;
    if (!it->is_regular_file(ec)) continue;
    auto ext = it->path().extension();
    if (ext == ".md" || ext == ".json") {
      files.emplace_back(fs::relative(it->path(), root, ec).string(), it->path());
    }
  }
  std::sort(files.begin(), files.end());
  std::string manifest;
  for (const auto& [rel, path] : files) {
    auto content = core::try_read_file(path);
    manifest += rel + " " + core::sha256_hex(content.value_or("")) + "\n";
  }
  return "sha256:" + core::sha256_hex(manifest);
}

}  // namespace kgo::wiki
