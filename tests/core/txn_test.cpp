#include "core/txn.hpp"
#include "core/ws_paths.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/git.hpp"
#include "core/memory.hpp"
#include "tests/test_util.hpp"

namespace kgo::core {

namespace {

using nlohmann::json;

class TxnTest : public ::testing::Test {
 protected:
  void SetUp() override {
    test::write(ws() / "kernel.py", "v0\n");
    test::write(ws() / "README.md", "# r\n");
    test::write(ws() / ".gitignore", ".kgo/\n");
    json rec = new_record(1);
    test::write(ws() / "memory" / "v1.json", dump_record(rec));
    GitRepo repo = GitRepo::init(ws());
    repo.add_all();
    m_base = repo.commit("init");
  }
  fs::path ws() const { return m_dir.path(); }

  // Two commits: kernel + record + a new file, then the record names the first commit.
  std::vector<TxnCommit> two_commits() const {
    json rec = new_record(1);
    rec["quality_gate"]["result"] = "PASS";
    TxnCommit a{"V1: first", {{"kernel.py", std::string("v1\n"), true}, {"memory/v1.json", dump_record(rec), true},
                              {"rejected/v1/kernel.py", std::string("old\n"), true}, {"README.md", std::nullopt, true}},
                {}};
    TxnCommit b{"V1: bookkeeping", {}, {"memory/v1.json"}};
    return {a, b};
  }

  test::TempDir m_dir;
  std::string m_base;
};

}  // namespace

TEST_F(TxnTest, CommitsOnceAndTheRecordNamesItsCommit) {
  TxnResult r = run_transaction(ws(), "test", two_commits());
  ASSERT_EQ(r.outcome, "completed");
  ASSERT_EQ(r.commits.size(), 2u);
  GitRepo repo = GitRepo::open(ws());
  EXPECT_EQ(repo.head(), r.commits[1]);
  auto log = repo.log();
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log[1].id, r.commits[0]);
  EXPECT_EQ(log[1].summary, "V1: first");
  EXPECT_EQ(log[2].id, m_base);
  EXPECT_EQ(json::parse(test::read(ws() / "memory/v1.json"))["git_commit"], r.commits[0]);
  EXPECT_TRUE(json::parse(*repo.read_at(r.commits[0], "memory/v1.json"))["git_commit"].is_null());
  EXPECT_EQ(*repo.read_at("HEAD", "memory/v1.json"), test::read(ws() / "memory/v1.json"));
  EXPECT_EQ(test::read(ws() / "kernel.py"), "v1\n");
  EXPECT_EQ(test::read(ws() / "rejected/v1/kernel.py"), "old\n");
  EXPECT_FALSE(fs::exists(ws() / "README.md"));
  EXPECT_TRUE(repo.changed_paths().empty());
  EXPECT_FALSE(transaction_pending(ws()));
  EXPECT_FALSE(fs::exists(ws() / ".kgo" / "txn"));
}

TEST_F(TxnTest, CommitOnlyFilesLeaveTheWorkTreeAlone) {
  test::write(ws() / "kernel.py", "edited after the check\n");
  TxnResult r = run_transaction(ws(), "test", {{"keep", {{"kernel.py", std::string("checked\n"), false}}, {}}});
  GitRepo repo = GitRepo::open(ws());
  EXPECT_EQ(*repo.read_at(r.commits[0], "kernel.py"), "checked\n");
  EXPECT_EQ(test::read(ws() / "kernel.py"), "edited after the check\n");
}

TEST_F(TxnTest, KilledAtEveryCheckpointThenRecoveredGivesTheSameCommits) {
  ::setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
  TxnResult reference;
  {
    test::TempDir other;
    fs::copy(ws(), other.path(), fs::copy_options::recursive);
    reference = run_transaction(other.path(), "test", two_commits());
  }
  int completed_at = 0;
  for (int at = 1; at < 200 && !completed_at; ++at) {
    test::TempDir copy;
    fs::copy(ws(), copy.path(), fs::copy_options::recursive);
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      set_fault_injection(at);
      try {
        run_transaction(copy.path(), "test", two_commits());
      } catch (...) {
        ::_exit(2);
      }
      ::_exit(0);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (WIFEXITED(status)) {
      ASSERT_EQ(WEXITSTATUS(status), 0) << "checkpoint " << at;
      completed_at = at;
    } else {
      ASSERT_EQ(WTERMSIG(status), SIGKILL);
    }
    WorkspaceLock lock(copy.path());
    recover_workspace(copy.path());
    GitRepo repo = GitRepo::open(copy.path());
    auto head = repo.head();
    // Either nothing happened (killed before the journal was complete) or all of it did.
    if (*head == m_base) {
      EXPECT_EQ(test::read(copy / "kernel.py"), "v0\n") << "checkpoint " << at;
    } else {
      EXPECT_EQ(*head, reference.commits[1]) << "checkpoint " << at;
      EXPECT_EQ(test::read(copy / "kernel.py"), "v1\n");
      EXPECT_EQ(json::parse(test::read(copy / "memory/v1.json"))["git_commit"], reference.commits[0]);
    }
    EXPECT_TRUE(repo.changed_paths().empty()) << "checkpoint " << at;
    EXPECT_FALSE(transaction_pending(copy.path()));
  }
  ::unsetenv("SOURCE_DATE_EPOCH");
  EXPECT_GT(completed_at, 10);  // the transaction really has that many kill points
}

TEST_F(TxnTest, WorkTreeWritesAreAllOrNoneAtEveryCheckpointAndNeedNoGit) {
  fs::remove_all(ws() / ".git");  // records and plans are written without a commit, so without git
  std::string record = test::read(ws() / "memory" / "v1.json");
  std::vector<TxnFile> files = {{"plans/v2_plan.md", std::string("# plan\n"), true},
                                {"memory/v2.json", dump_record(new_record(2)), true}};
  int completed_at = 0;
  for (int at = 1; at < 100 && !completed_at; ++at) {
    test::TempDir copy;
    fs::copy(ws(), copy.path(), fs::copy_options::recursive);
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      set_fault_injection(at);
      write_files(copy.path(), "plan new v2", files);
      ::_exit(0);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (WIFEXITED(status)) {
      ASSERT_EQ(WEXITSTATUS(status), 0) << "checkpoint " << at;
      completed_at = at;
    } else {
      ASSERT_EQ(WTERMSIG(status), SIGKILL);
    }
    LockedWorkspace next(copy.path());  // what the next kgo command does first
    bool plan = fs::exists(copy / "plans" / "v2_plan.md"), rec = fs::exists(copy / "memory" / "v2.json");
    EXPECT_EQ(plan, rec) << "checkpoint " << at;
    if (rec) EXPECT_EQ(test::read(copy / "memory" / "v2.json"), *files[1].content) << "checkpoint " << at;
    EXPECT_EQ(test::read(copy / "memory" / "v1.json"), record);
    EXPECT_FALSE(transaction_pending(copy.path()));
    for (const auto& dir : {copy.path(), copy / "memory", copy / "plans"}) {
      std::error_code ec;
      for (const auto& e : fs::directory_iterator(dir, ec)) {
        EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path() << " at " << at;
      }
    }
  }
  EXPECT_GT(completed_at, 12);
}

TEST_F(TxnTest, AbandonsWhenTheBranchMovedMeanwhile) {
  ::setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
  pid_t pid = ::fork();
  if (pid == 0) {
    std::vector<TxnCommit> c = two_commits();
    // Kill right after the journal is complete: 3 staged files and the journal, 3 checkpoints each.
    set_fault_injection(3 * 3 + 3);
    run_transaction(ws(), "test", c);
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::unsetenv("SOURCE_DATE_EPOCH");
  ASSERT_TRUE(WIFSIGNALED(status));
  ASSERT_TRUE(transaction_pending(ws()));
  GitRepo repo = GitRepo::open(ws());
  test::write(ws() / "other.txt", "x");
  repo.add({"other.txt"});
  std::string moved = repo.commit("someone else");
  WorkspaceLock lock(ws());
  auto r = recover_workspace(ws());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->result.outcome.rfind("abandoned", 0), 0u) << r->result.outcome;
  EXPECT_EQ(repo.head(), moved);
  EXPECT_EQ(test::read(ws() / "kernel.py"), "v0\n");
  EXPECT_FALSE(transaction_pending(ws()));
}

TEST_F(TxnTest, RecoveryRemovesStaleLocksAndTemporaryFiles) {
  fs::create_directories(ws() / ".kgo");
  test::write(ws() / "memory" / ".v1.json.tmpAbC123", "{\"half");
  test::write(ws() / "memory" / "notes.txt", "kept");
  // A journal for an empty transaction: recovery must still clean up and then finish it.
  pid_t pid = ::fork();
  if (pid == 0) {
    set_fault_injection(4);  // staged file (3 checkpoints), then inside the journal write
    run_transaction(ws(), "test", {{"msg", {{"kernel.py", std::string("v1\n"), true}}, {}}});
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_FALSE(transaction_pending(ws()));  // killed mid-journal: no journal, so nothing happened
  // A git lock no journal vouches for is another process's: transactions refuse, recovery keeps it.
  test::write(ws() / ".git" / "index.lock", "");
  try {
    run_transaction(ws(), "test", {{"msg", {{"kernel.py", std::string("v2\n"), true}}, {}}});
    ADD_FAILURE() << "a transaction ran beside a foreign index.lock";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::git_error);
    EXPECT_NE(std::string(e.what()).find("index.lock"), std::string::npos) << e.what();
  }
  EXPECT_EQ(test::read(ws() / "kernel.py"), "v0\n");
  {
    WorkspaceLock lock(ws());
    EXPECT_FALSE(recover_workspace(ws()));
  }
  EXPECT_FALSE(fs::exists(ws() / "memory" / ".v1.json.tmpAbC123"));
  EXPECT_TRUE(fs::exists(ws() / "memory" / "notes.txt"));
  EXPECT_TRUE(fs::exists(ws() / ".git" / "index.lock"));  // not ours to remove without a journal
  // kgo writes journals atomically, so a torn one is not kgo's: refused, left alone, locks kept.
  test::write(ws() / ".kgo" / "journal.json", "{ torn");
  WorkspaceLock lock(ws());
  try {
    recover_workspace(ws());
    ADD_FAILURE() << "a torn journal was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::unsafe_path);
    EXPECT_NE(std::string(e.what()).find("rm -r"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::exists(ws() / ".kgo" / "journal.json"));
  EXPECT_TRUE(fs::exists(ws() / ".git" / "index.lock"));
  EXPECT_EQ(GitRepo::open(ws()).head(), m_base);
}

TEST_F(TxnTest, LockedWorkspaceIsReentrant) {
  LockedWorkspace outer(ws());
  LockedWorkspace inner(ws());
  EXPECT_THROW(WorkspaceLock(ws(), std::chrono::milliseconds(50)), Error);
}

}  // namespace kgo::core
