#pragma once
// Which Python runs the harness (`--python` > $KGO_PYTHON > python3) and where the harness
// script lives (core::data_dir()/tools/harness). Both are checked before any run.
#include <filesystem>
#include <optional>
#include <string>

namespace kgo::harness {

struct PythonInterpreter {
  std::string command;              // as given: "python3", "/opt/venv/bin/python"
  std::filesystem::path resolved;   // absolute path found in PATH
  std::string source;               // "--python", "$KGO_PYTHON" or "default"
};

// Resolves the interpreter; throws Error(harness_error) naming the source and the fix when
// the chosen program does not exist or is not executable.
PythonInterpreter locate_python(const std::optional<std::string>& flag);

// The folder holding kgo_harness.py; throws Error(harness_error) when it is absent.
std::filesystem::path harness_dir();

// harness_dir() / "kgo_harness.py".
std::filesystem::path harness_script();

}  // namespace kgo::harness
