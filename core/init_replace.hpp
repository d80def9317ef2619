#pragma once
// Putting a freshly built workspace folder in place, crash-safe, and sweeping what killed `kgo
// init`s left behind. Internal to core/init.cpp.
#include <filesystem>
#include <optional>
#include <string>

namespace kgo::core {

namespace fs = std::filesystem;

// Moves the complete new workspace `tmp` (a `.kernel_opt_<name>.tmp-<pid>-XXXXXX` sibling) to
// `target`. With `replace`, the folder at `target` is swapped out in one rename (RENAME_EXCHANGE)
// and then moved to `target.replaced-<stamp>[-N]`, whose path is returned; a SIGKILL at any point
// leaves the old workspace at `target` or the new one, never neither, and the old one never lost.
// Throws Error(workspace_exists) when `target` appeared meanwhile and `replace` is false.
std::optional<fs::path> place_workspace(const fs::path& tmp, const fs::path& target, bool replace,
                                        const std::string& stamp);

// Finishes or removes what killed `kgo init`s left in `parent`: temporary folders of processes
// that are gone (a live or reused pid keeps its folder), older unnamed ones after a day, and a
// replacement interrupted between its swap and its move aside (the old workspace is moved aside).
void sweep_stale_temp_dirs(const fs::path& parent);

}  // namespace kgo::core
