#include "harness/python.hpp"

#include <cstdlib>

#include "core/error.hpp"
#include "core/process.hpp"
#include "core/resources.hpp"

namespace kgo::harness {

namespace fs = std::filesystem;

PythonInterpreter locate_python(const std::optional<std::string>& flag) {
  PythonInterpreter p;
  if (flag && !flag->empty()) {
    p.command = *flag;
    p.source = "--python";
  } else if (const char* env = std::getenv("KGO_PYTHON"); env && *env) {
    p.command = env;
    p.source = "$KGO_PYTHON";
  } else {
    p.command = "python3";
    p.source = "default";
  }
  auto found = core::find_in_path(p.command);
  if (!found) {
    std::string how = p.source == "default"
                          ? "install Python 3 or pass --python PATH (or set KGO_PYTHON)"
                          : "fix " + p.source + " to name an executable Python 3 interpreter";
    throw Error("Python interpreter '" + p.command + "' (from " + p.source +
                    ") was not found or is not executable; " + how,
                ExitCode::harness_error);
  }
  std::error_code ec;
  fs::path abs = fs::absolute(*found, ec);
  p.resolved = ec ? *found : abs;
  return p;
}

fs::path harness_entry() {
  fs::path dir = core::data_dir() / "tools" / "kgo_harness";
  std::error_code ec;
  if (!fs::is_regular_file(dir / "__main__.py", ec)) {
    throw Error("kgo's Python harness is missing (" + (dir / "__main__.py").string() +
                    "); reinstall kgo or set KGO_DATA_DIR to a kgo source tree",
                ExitCode::harness_error);
  }
  return dir;
}

}  // namespace kgo::harness
