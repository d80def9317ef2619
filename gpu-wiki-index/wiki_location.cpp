#include "gpu-wiki-index/wiki_location.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "core/error.hpp"
#include "core/git.hpp"
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

std::string untrusted_reason(const fs::path& dir) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return "it cannot be read";
  if (S_ISLNK(st.st_mode)) return "it is a symlink";
  if (!S_ISDIR(st.st_mode)) return "it is not a directory";
  if (st.st_uid != ::geteuid()) return "it is owned by uid " + std::to_string(st.st_uid) + ", not by you";
  if (st.st_mode & (S_IWGRP | S_IWOTH)) return "group or others can write to it";
  return "";
}

WikiLocation locate_wiki(const std::optional<fs::path>& explicit_dir) {
  if (explicit_dir) return checked(*explicit_dir, "--wiki");
  if (const char* env = std::getenv("KGO_GPU_WIKI"); env && *env) {
    return checked(env, "KGO_GPU_WIKI");
  }
  std::error_code ec;
  const fs::path shared = "/tmp/gpu-wiki";
  if (fs::exists(fs::symlink_status(shared, ec))) {
    if (std::string why = untrusted_reason(shared); !why.empty()) {
      throw Error("refusing the default gpu-wiki " + shared.string() + ": " + why +
                      ", so another local user could have planted its numbers; if you trust it, name it explicitly "
                      "with --wiki /tmp/gpu-wiki (or KGO_GPU_WIKI=/tmp/gpu-wiki), else remove it or pass your own "
                      "--wiki DIR",
                  ExitCode::wiki_error);
    }
    return checked(shared, "/tmp/gpu-wiki");
  }
  WikiLocation loc = checked(core::data_dir() / "gpu-wiki-index" / "wiki", "embedded");
  loc.embedded = true;
  return loc;
}

WikiIdentity identify_wiki(const WikiLocation& loc, const std::string& fingerprint) {
  WikiIdentity id{loc.root.string(), loc.source, loc.embedded, "",
                  fingerprint.empty() ? wiki_fingerprint(loc.root) : fingerprint};
  try {
    if (auto repo = core::GitRepo::containing(loc.root)) id.commit = repo->head().value_or("");
  } catch (const Error&) {
    // An unreadable repository: the fingerprint still names the content.
  }
  return id;
}

std::string describe(const WikiIdentity& id) {
  std::string fp = id.fingerprint.rfind("sha256:", 0) == 0 ? id.fingerprint.substr(0, 19) : id.fingerprint;
  return id.path + " (" + id.source + (id.commit.empty() ? "; not in git" : "; git " + id.commit.substr(0, 12)) +
         "; " + fp + ")";
}

nlohmann::json to_json(const WikiIdentity& id) {
  return {{"path", id.path},
          {"source", id.source},
          {"embedded", id.embedded},
          {"commit", id.commit.empty() ? nlohmann::json(nullptr) : nlohmann::json(id.commit)},
          {"fingerprint", id.fingerprint}};
}

}  // namespace kgo::wiki
