#pragma once
// Which Python runs the harness (`--python` > $KGO_PYTHON > python3) and where the harness
// package lives (core::data_dir()/tools/kgo_harness). Both are checked before any run.
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

// What Python is given to run the harness: the kgo_harness package folder under
// core::data_dir()/tools (Python runs its __main__.py). Throws Error(harness_error) when absent.
std::filesystem::path harness_entry();

}  // namespace kgo::harness
