#include "harness/python.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "core/error.hpp"
#include "tests/test_util.hpp"

namespace kgo::harness {

namespace {

struct EnvGuard {
  explicit EnvGuard(const char* value) {
    if (const char* old = std::getenv("KGO_PYTHON")) m_old = old;
    if (value) ::setenv("KGO_PYTHON", value, 1);
    else ::unsetenv("KGO_PYTHON");
  }
  ~EnvGuard() {
    if (m_old) ::setenv("KGO_PYTHON", m_old->c_str(), 1);
    else ::unsetenv("KGO_PYTHON");
  }
  std::optional<std::string> m_old;
};

}  // namespace

TEST(PythonTest, FlagThenEnvThenPython3) {
  EnvGuard env("/bin/sh");
  EXPECT_EQ(locate_python(std::string("/bin/true")).source, "--python");
  EXPECT_EQ(locate_python(std::string("/bin/true")).command, "/bin/true");
  EXPECT_EQ(locate_python(std::nullopt).source, "$KGO_PYTHON");
  EXPECT_EQ(locate_python(std::nullopt).command, "/bin/sh");
  EnvGuard unset(nullptr);
  auto p = locate_python(std::nullopt);
  EXPECT_EQ(p.command, "python3");
  EXPECT_EQ(p.source, "default");
  EXPECT_TRUE(p.resolved.is_absolute());
}

TEST(PythonTest, MissingInterpreterNamesItsSource) {
  EnvGuard env("/nonexistent/python");
  try {
    locate_python(std::nullopt);
    FAIL() << "missing interpreter accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::harness_error);
    EXPECT_NE(std::string(e.what()).find("$KGO_PYTHON"), std::string::npos);
  }
}

TEST(PythonTest, TheHarnessPackageIsFound) {
  EXPECT_TRUE(std::filesystem::is_regular_file(harness_entry() / "__main__.py"));
  EXPECT_EQ(harness_entry().filename(), "kgo_harness");
}

}  // namespace kgo::harness
