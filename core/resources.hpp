#pragma once
// Locates kgo's data files (templates/, schemas/, the embedded wiki, tools/).
// Order: $KGO_DATA_DIR, then <exe>/../share/kgo (installed), then the source tree the
// binary was built from. Throws when none holds `templates/README.md`.
#include <filesystem>
#include <string>

namespace kgo::core {

// Remembers argv[0] / /proc/self/exe so data_dir() can find an installed share dir.
void set_executable_path(const std::filesystem::path& exe);

// The root holding templates/, schemas/, gpu-wiki-index/wiki and tools/.
std::filesystem::path data_dir();

// data_dir() / `relative`, checked to exist.
std::filesystem::path data_file(const std::string& relative);

// kgo's version string (from CMake's project version).
std::string kgo_version();

}  // namespace kgo::core
