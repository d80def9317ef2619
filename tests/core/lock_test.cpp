#include "core/lock.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/process.hpp"
#include "tests/test_util.hpp"

namespace kgo::core {

TEST(LockTest, SecondHolderFailsClearly) {
  test::TempDir dir;
  WorkspaceLock first(dir.path());
  // flock locks are per open file description, so a second open in this process conflicts too.
  try {
    WorkspaceLock second(dir.path(), std::chrono::milliseconds(100));
    FAIL() << "second lock succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::locked);
    EXPECT_NE(std::string(e.what()).find("locked by another kgo process"), std::string::npos);
  }
}

TEST(LockTest, ReleasedOnDestruction) {
  test::TempDir dir;
  { WorkspaceLock first(dir.path()); }
  WorkspaceLock again(dir.path(), std::chrono::milliseconds(100));
  SUCCEED();
}

TEST(LockTest, OtherProcessBlocksUntilRelease) {
  test::TempDir dir;
  auto lockfile = (dir / ".kgo/lock").string();
  WorkspaceLock first(dir.path());
  ProcessOptions o;
  o.timeout = std::chrono::seconds(10);
  auto r = run_process({"flock", "-n", lockfile, "true"}, o);
  EXPECT_NE(r.exit_code, 0);  // held by us
}

}  // namespace kgo::core
