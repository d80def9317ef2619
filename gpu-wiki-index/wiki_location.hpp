#pragma once
// Which gpu-wiki kgo reads: --wiki, else $KGO_GPU_WIKI, else /tmp/gpu-wiki when it exists,
// else the embedded default wiki installed with kgo.
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace kgo::wiki {

struct WikiLocation {
  std::filesystem::path root;
  bool embedded = false;
  std::string source;  // "--wiki", "KGO_GPU_WIKI", "/tmp/gpu-wiki" or "embedded"
};

// Why a shared default location such as /tmp/gpu-wiki must not be trusted implicitly: it is a
// symlink, not a directory, not owned by the current user, or writable by group or others
// (anyone could plant numbers there). "" when it is safe to read.
std::string untrusted_reason(const std::filesystem::path& dir);

// Throws Error(wiki_error) when an explicitly named wiki is missing or not a directory, or when
// /tmp/gpu-wiki exists but is untrusted (the message says how to trust it explicitly).
WikiLocation locate_wiki(const std::optional<std::filesystem::path>& explicit_dir);

// SHA-256 over every .md / .json file the index reads (relative path + content hash, sorted); a
// file unchanged since the index cache was written contributes the hash stored there.
std::string wiki_fingerprint(const std::filesystem::path& root);

// Which wiki a command read, as every command that reads one reports it: the folder, how it was
// chosen, the commit of the git repository holding it ("" when none) and its content fingerprint
// (wiki_fingerprint: it changes with any edit, committed or not).
struct WikiIdentity {
  std::string path;
  std::string source;
  bool embedded = false;
  std::string commit;
  std::string fingerprint;
};
// `fingerprint` when the caller has it (WikiIndex::fingerprint()), else computed here.
WikiIdentity identify_wiki(const WikiLocation& loc, const std::string& fingerprint = "");

// "/path/to/wiki (--wiki; git 1a2b3c4d5e6f; sha256:0a1b2c3d4e5f)".
std::string describe(const WikiIdentity& id);
// {"path", "source", "embedded", "commit" (null when not in git), "fingerprint"}.
nlohmann::json to_json(const WikiIdentity& id);

}  // namespace kgo::wiki
