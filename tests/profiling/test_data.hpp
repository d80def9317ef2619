#pragma once
// Test data of tests/profiling/data/: SASS, PTX, ncu CSVs and compiler reports captured on the H200
// (evidence/profiling-h200-2026-11-20.md says how they were made).
#include <filesystem>
#include <string>

#include "core/files.hpp"

namespace kgo::profiling::test_data {

inline std::filesystem::path path(const std::string& name) {
  return std::filesystem::path(KGO_SOURCE_DIR) / "tests" / "profiling" / "data" / name;
}

inline std::string read(const std::string& name) { return core::read_file(path(name)); }

}  // namespace kgo::profiling::test_data
