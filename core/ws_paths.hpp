#pragma once
// Workspace paths resolved without following links. kgo never reads or writes through a symbolic
// link (or a FIFO, socket or device) in the parts of a workspace it manages; a violation is an
// Error(unsafe_path) naming the path and how to fix it. Checks use lstat per component under the
// workspace root (the root itself is the user's choice and may be a link).
#include <filesystem>
#include <string>

#include "core/error.hpp"

namespace kgo::core {

namespace fs = std::filesystem;

// A '/'-separated relative path with no empty, ".", ".." or dot-leading component ("memory/v3.json").
bool plain_relative_path(const std::string& rel);

// Every existing component of `<ws>/<rel>` below `ws` is a real directory and the last one, when
// it exists, a regular file (a directory when `dir`). Throws Error(unsafe_path) otherwise.
void check_no_follow(const fs::path& ws, const std::string& rel, bool dir = false);

// The entries kgo manages (.kgo and its files, .git, memory/, plans/, profiles/, rejected/,
// README.md, kgo.json, specs.json, roofline.json, reports, and every entry of memory/, plans/ and
// profiles/) are not links; top-level files are regular. FIFOs and other special files under
// memory/ are left to record_versions, which skips them with a warning.
void check_workspace_layout(const fs::path& ws);

}  // namespace kgo::core
