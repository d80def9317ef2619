#include "core/problem.hpp"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/git.hpp"
#include "core/init.hpp"
#include "core/stamp.hpp"
#include "tests/test_util.hpp"

namespace kgo::core {

namespace {

using kgo::test::code_of;

class ProblemTest : public ::testing::Test {
 protected:
  void SetUp() override {
    test::write(m_dir / "src" / "kernel.py", "def kernel():\n    return 0\n");
    test::write(m_dir / "src" / "ref.py", "def reference(x):\n    return x\n");
    InitRequest req;
    req.name = "p";
    req.kernel = m_dir / "src" / "kernel.py";
    req.reference = m_dir / "src" / "ref.py";
    req.dir = m_dir.path();
    m_ws = init_workspace(req, {"H100", "H100 SXM", "Hopper", "/wiki", "sha256:00", true}).workspace;
  }

  std::string commit(const std::vector<std::string>& paths, const std::string& message) {
    GitRepo repo = GitRepo::open(m_ws);
    repo.add(paths);
    return repo.commit(message);
  }

  // v0 accepted in an iteration commit, then the bookkeeping commit that names it, as accept writes them.
  std::string accept_v0() {
    test::write(m_ws / "memory" / "v0.json", "{\"version\": \"v0\", \"quality_gate\": {\"result\": \"PASS\"}}\n");
    std::string id = commit({"memory/v0.json"}, "V0: baseline");
    test::write(m_ws / "memory" / "v0.json",
                "{\"version\": \"v0\", \"quality_gate\": {\"result\": \"PASS\"}, \"git_commit\": \"" + id + "\"}\n");
    commit({"memory/v0.json"}, "V0: record the id of its iteration commit in memory/v0.json");
    return id;
  }

  test::TempDir m_dir;
  std::filesystem::path m_ws;
};

}  // namespace

TEST_F(ProblemTest, AnUncommittedReferenceIsRefusedBeforeAndAfterTheBaseline) {
  EXPECT_FALSE(problem_difference(m_ws));
  test::write(m_ws / "ref.py", "def reference(x):\n    return 0 * x\n");
  std::string msg;
  EXPECT_EQ(code_of([&] { verify_problem_unchanged(m_ws); }, &msg), ExitCode::kernel_missing);
  EXPECT_NE(msg.find("ref.py differs from its committed version"), std::string::npos) << msg;
  EXPECT_NE(msg.find("git checkout -- ref.py"), std::string::npos) << msg;
  test::write(m_ws / "ref.py", "def reference(x):\n    return x\n");
  EXPECT_FALSE(problem_difference(m_ws));
}

TEST_F(ProblemTest, ACommitBeforeTheBaselineIsTheProblemACommitAfterItIsNamed) {
  test::write(m_ws / "ref.py", "def reference(x):\n    return x + 0\n");
  commit({"ref.py"}, "fix the reference before the baseline");
  EXPECT_FALSE(find_baseline(m_ws));
  EXPECT_FALSE(problem_difference(m_ws));  // no baseline yet: the committed reference is the problem
  std::string base = accept_v0();
  ASSERT_TRUE(find_baseline(m_ws));
  EXPECT_EQ(find_baseline(m_ws)->commit, base);
  EXPECT_TRUE(problem_changes_since_baseline(m_ws).empty());
  test::write(m_ws / "ref.py", "def reference(x):\n    return 0 * x\n");
  std::string bad = commit({"ref.py"}, "tidy");
  test::write(m_ws / "notes.txt", "unrelated\n");
  commit({"notes.txt"}, "notes");
  auto changes = problem_changes_since_baseline(m_ws);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].file, "ref.py");
  EXPECT_EQ(changes[0].commit, bad);
  EXPECT_EQ(changes[0].subject, "tidy");
  EXPECT_NE(changes[0].describe(find_baseline(m_ws)).find("by commit " + bad.substr(0, 7) + " \"tidy\""),
            std::string::npos);
  auto why = problem_difference(m_ws);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("differs from the baseline's (V0, commit " + base.substr(0, 7) + ")"), std::string::npos) << *why;
  // Restored by a later commit: verdicts may run again, but the history still names the change.
  test::write(m_ws / "ref.py", "def reference(x):\n    return x + 0\n");
  commit({"ref.py"}, "restore");
  EXPECT_FALSE(problem_difference(m_ws));
  EXPECT_EQ(problem_changes_since_baseline(m_ws).size(), 2u);
}

TEST_F(ProblemTest, RepointingTheReferenceInKgoJsonIsAChangeOfTheProblem) {
  accept_v0();
  std::string cfg = test::read(m_ws / "kgo.json");
  size_t at = cfg.find("\"ref.py\"");
  ASSERT_NE(at, std::string::npos);
  test::write(m_ws / "easy.py", "def reference(x):\n    return 0 * x\n");
  test::write(m_ws / "kgo.json", cfg.replace(at, 8, "\"easy.py\""));
  commit({"kgo.json", "easy.py"}, "easier");
  auto changes = problem_changes_since_baseline(m_ws);
  ASSERT_FALSE(changes.empty());
  bool config = false;
  for (const auto& c : changes) config = config || c.file.rfind("kgo.json", 0) == 0;
  EXPECT_TRUE(config);
  EXPECT_TRUE(problem_difference(m_ws));
}

TEST_F(ProblemTest, InitMakesTheKeyAndKgoRefusesOneItDidNotMake) {
  auto key = m_ws / ".kgo" / "stamp.key";
  struct stat st {};
  ASSERT_EQ(::stat(key.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  nlohmann::json m = {{"status", "PASS"}};
  ensure_stamp_key(m_ws);
  std::string mac = stamp_mac(m_ws, 0, "correctness", m);
  test::write(key, std::string(64, 'a'));  // swapped after ensure_stamp_key read it (as a kernel could)
  std::string msg;
  EXPECT_EQ(code_of([&] { stamp_mac(m_ws, 0, "correctness", m); }, &msg), ExitCode::record_error);
  EXPECT_NE(msg.find("was replaced while the kernel ran"), std::string::npos) << msg;
  std::filesystem::remove(key);
  EXPECT_EQ(code_of([&] { stamp_mac(m_ws, 0, "correctness", m); }, &msg), ExitCode::record_error);
  EXPECT_NE(msg.find("removed while the kernel ran"), std::string::npos) << msg;
  ensure_stamp_key(m_ws);  // a new key, made and pinned by kgo: stamps again
  EXPECT_NE(stamp_mac(m_ws, 0, "correctness", m), mac);
  ::chmod(key.c_str(), 0644);
  EXPECT_EQ(code_of([&] { ensure_stamp_key(m_ws); }, &msg), ExitCode::record_error);
  EXPECT_NE(msg.find("has mode 0644"), std::string::npos) << msg;
}

}  // namespace kgo::core
