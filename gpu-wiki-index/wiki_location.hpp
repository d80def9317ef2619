#pragma once
// Which gpu-wiki kgo reads: --wiki, else $KGO_GPU_WIKI, else /tmp/gpu-wiki when it exists,
// else the embedded default wiki installed with kgo.
#include <filesystem>
#include <optional>
#include <string>

namespace kgo::wiki {

struct WikiLocation {
  std::filesystem::path root;
  bool embedded = false;
  std::string source;  // "--wiki", "KGO_GPU_WIKI", "/tmp/gpu-wiki" or "embedded"
};

// Throws Error(wiki_error) when an explicitly named wiki is missing or not a directory.
WikiLocation locate_wiki(const std::optional<std::filesystem::path>& explicit_dir);

// SHA-256 over every .md / .json file the index reads (relative path + content hash, sorted); a
// file unchanged since the index cache was written contributes the hash stored there.
std::string wiki_fingerprint(const std::filesystem::path& root);

}  // namespace kgo::wiki
