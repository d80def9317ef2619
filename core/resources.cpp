#include "core/resources.hpp"

#include <cstdlib>

#include "core/error.hpp"

#ifndef KGO_SOURCE_DIR
#define KGO_SOURCE_DIR ""
#endif
#ifndef KGO_VERSION
#define KGO_VERSION "0.0.0"
#endif
#ifndef KGO_INSTALL_DATADIR
#define KGO_INSTALL_DATADIR "share/kgo"
#endif

namespace kgo::core {

namespace fs = std::filesystem;

namespace {

fs::path& exe_path() {
  static fs::path p;
  return p;
}

bool looks_like_data_dir(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(dir / "templates" / "README.md", ec);
}

}  // namespace

void set_executable_path(const fs::path& exe) { exe_path() = exe; }

fs::path data_dir() {
  if (const char* env = std::getenv("KGO_DATA_DIR"); env && *env) {
    if (!looks_like_data_dir(env)) {
      throw Error(std::string("KGO_DATA_DIR=") + env +
                      " does not hold kgo's data (templates/README.md); unset it or fix the path",
                  ExitCode::failure);
    }
    return env;
  }
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) {
    exe = exe_path();
  }
  if (!exe.empty()) {
    fs::path installed = exe.parent_path().parent_path() / KGO_INSTALL_DATADIR;
    if (looks_like_data_dir(installed)) {
      return installed;
    }
  }
  fs::path source = KGO_SOURCE_DIR;
  if (!source.empty() && looks_like_data_dir(source)) {
    return source;
  }
  throw Error("cannot find kgo's data files (templates, schemas, wiki); reinstall kgo or set "
              "KGO_DATA_DIR",
              ExitCode::failure);
}

fs::path data_file(const std::string& relative) {
  fs::path p = data_dir() / relative;
  std::error_code ec;
  if (!fs::exists(p, ec)) {
    throw Error("kgo data file missing: " + p.string() + "; reinstall kgo", ExitCode::failure);
  }
  return p;
}

std::string kgo_version() { return KGO_VERSION; }

}  // namespace kgo::core
