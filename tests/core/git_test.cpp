#include "core/git.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/process.hpp"
#include "tests/test_util.hpp"

namespace kgo::core {

TEST(GitTest, InitAddCommitReadableByGitCli) {
  test::TempDir dir;
  GitRepo repo = GitRepo::init(dir.path());
  EXPECT_FALSE(repo.head().has_value());
  test::write(dir / "a.txt", "one\n");
  repo.add_all();
  std::string c1 = repo.commit("first");
  test::write(dir / "a.txt", "two\n");
  repo.add({"a.txt"});
  std::string c2 = repo.commit("second");
  EXPECT_EQ(*repo.head(), c2);
  auto log = repo.log();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0].summary, "second");
  EXPECT_EQ(log[1].id, c1);
  auto r = run_process({"git", "-C", dir.path().string(), "log", "--format=%H %s"});
  EXPECT_EQ(r.out, c2 + " second\n" + c1 + " first\n");
  auto fsck = run_process({"git", "-C", dir.path().string(), "fsck", "--strict"});
  EXPECT_EQ(fsck.exit_code, 0) << fsck.err;
}

TEST(GitTest, HeldObjectsAreWrittenAsOnePack) {
  test::TempDir dir;
  std::string c1;
  {
    GitRepo repo = GitRepo::init(dir.path());
    repo.hold_objects_in_memory();
    test::write(dir / "a.txt", "one\n");
    test::write(dir / "sub" / "b.txt", "two\n");
    repo.add_all();
    c1 = repo.commit("first");
    // Before the write the objects exist only in memory: the git CLI cannot see the commit.
    EXPECT_NE(run_process({"git", "-C", dir.path().string(), "cat-file", "-e", c1}).exit_code, 0);
    repo.write_held_objects();
    EXPECT_EQ(*repo.read_at(c1, "sub/b.txt"), "two\n");
    // Later objects are held again until the next write; write it too.
    test::write(dir / "a.txt", "three\n");
    repo.add_all();
    repo.commit("second");
    repo.write_held_objects();
  }
  size_t loose = 0, packs = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir / ".git" / "objects")) {
    if (!e.is_regular_file()) continue;
    if (e.path().extension() == ".pack") ++packs;
    else if (e.path().extension() != ".idx") ++loose;
  }
  EXPECT_EQ(loose, 0u);
  EXPECT_EQ(packs, 2u);
  auto log = run_process({"git", "-C", dir.path().string(), "log", "--format=%s"});
  EXPECT_EQ(log.out, "second\nfirst\n");
  auto fsck = run_process({"git", "-C", dir.path().string(), "fsck", "--strict", "--full"});
  EXPECT_EQ(fsck.exit_code, 0) << fsck.err;
  EXPECT_EQ(run_process({"git", "-C", dir.path().string(), "status", "--porcelain"}).out, "");
}

TEST(GitTest, ReadAtAndRestore) {
  test::TempDir dir;
  GitRepo repo = GitRepo::init(dir.path());
  test::write(dir / "k.py", "v1");
  repo.add_all();
  std::string c1 = repo.commit("v1");
  test::write(dir / "k.py", "v2");
  repo.add_all();
  repo.commit("v2");
  EXPECT_EQ(*repo.read_at(c1, "k.py"), "v1");
  EXPECT_EQ(*repo.read_at("HEAD", "k.py"), "v2");
  EXPECT_FALSE(repo.read_at("HEAD", "nope").has_value());
  test::write(dir / "k.py", "edited");
  repo.restore_paths(c1, {"k.py"});
  EXPECT_EQ(test::read(dir / "k.py"), "v1");
  repo.reset_hard("HEAD");
  EXPECT_EQ(test::read(dir / "k.py"), "v2");
}

TEST(GitTest, ChangedPathsAndRemoval) {
  test::TempDir dir;
  GitRepo repo = GitRepo::init(dir.path());
  test::write(dir / "a", "a");
  test::write(dir / "b", "b");
  repo.add_all();
  repo.commit("c");
  EXPECT_TRUE(repo.changed_paths().empty());
  std::filesystem::remove(dir / "b");
  test::write(dir / "c", "c");
  auto changed = repo.changed_paths();
  EXPECT_EQ(changed.size(), 2u);
  repo.add({"b", "c"});
  repo.commit("d");
  EXPECT_FALSE(repo.read_at("HEAD", "b").has_value());
}

TEST(GitTest, OpenNonRepoThrowsGitError) {
  test::TempDir dir;
  try {
    GitRepo::open(dir.path());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::git_error);
  }
}

}  // namespace kgo::core
