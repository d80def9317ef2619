#pragma once
// Test helpers for the tool finder: an environment variable set for one scope, and a fake
// executable that prints a version line.
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "tests/test_util.hpp"

namespace kgo::test {

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : m_name(name) {
    if (const char* old = std::getenv(name)) m_old = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (m_old) ::setenv(m_name, m_old->c_str(), 1);
    else ::unsetenv(m_name);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* m_name;
  std::optional<std::string> m_old;
};

// An executable script `dir`/`name` printing `version_line`.
inline std::filesystem::path fake_tool(const std::filesystem::path& dir, const std::string& name,
                                       const std::string& version_line = "fake") {
  auto p = dir / name;
  write(p, "#!/bin/sh\necho '" + version_line + "'\n");
  ::chmod(p.c_str(), 0755);
  return p;
}

}  // namespace kgo::test
