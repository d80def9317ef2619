#include "experience/store.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "tests/test_util.hpp"

namespace kgo::experience {
namespace {

Entry sample(int i, const std::string& outcome = "success", double speedup = 1.3) {
  Entry e;
  e.kernel_class = "softmax";
  e.arch = "sm_90";
  e.bottleneck = "memory";
  e.language = "triton";
  e.dtype = "fp32";
  e.action_category = "vectorized_load";
  e.change = "float4 loads";
  e.evidence = {"dram_pct = 41 (profiles/v1/profile.json)"};
  e.outcome = outcome;
  e.speedup = speedup;
  e.correctness = "PASS";
  e.source = "ws" + std::to_string(i) + " v2 (after v1)";
  e.recorded_at = "2026-11-23T12:00:00Z";
  e.speedups = {speedup};
  e.sources = {e.source};
  e.id = entry_id(e);
  return e;
}

TEST(Store, ConcurrentWritersLoseNothing) {
  test::TempDir dir;
  const int procs = 8, each = 50;
  std::vector<pid_t> pids;
  for (int p = 0; p < procs; ++p) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      for (int i = 0; i < each; ++i) append_entry(dir.path(), sample(p * 1000 + i));
      _exit(0);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  auto loaded = load(dir.path());
  EXPECT_TRUE(loaded.skipped.empty());
  ASSERT_EQ(loaded.entries.size(), static_cast<size_t>(procs * each));
  std::set<std::string> ids;
  for (const auto& e : loaded.entries) ids.insert(e.id);
  EXPECT_EQ(ids.size(), static_cast<size_t>(procs * each));
}

TEST(Store, RefusesUnknownVocabularyBeforeWriting) {
  test::TempDir dir;
  Entry e = sample(1);
  e.bottleneck = "memory_bound";
  try {
    append_entry(dir.path(), e);
    FAIL();
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), ExitCode::usage);
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "experience.jsonl"));
  Entry bad = sample(2);
  bad.arch = "Hopper";
  EXPECT_THROW(append_entry(dir.path(), bad), Error);
}

TEST(Store, ATornLastLineIsSkippedAndNamed) {
  test::TempDir dir;
  append_entry(dir.path(), sample(1));
  test::write(dir / "experience.jsonl", test::read(dir / "experience.jsonl") + "{\"id\": \"trunc");
  auto loaded = load(dir.path());
  EXPECT_EQ(loaded.entries.size(), 1u);
  ASSERT_EQ(loaded.skipped.size(), 1u);
  EXPECT_NE(loaded.skipped[0].find("experience.jsonl:2"), std::string::npos);
}

TEST(Store, ALargeStoreKeepsFileOrderAndLineNumbersAcrossChunks) {
  test::TempDir dir;
  std::vector<Entry> written;
  std::string text;
  const int n = 3000, bad_line = 2001;  // about 1.3 MB: several parse chunks
  for (int i = 1; i <= n; ++i) {
    if (i == bad_line) {
      text += "{\"id\": \"torn\n";
      continue;
    }
    written.push_back(sample(i));
    text += to_json(written.back()).dump() + "\n";
  }
  ASSERT_GT(text.size(), 1024u * 1024u);
  test::write(dir / "experience.jsonl", text);
  auto loaded = load(dir.path());
  ASSERT_EQ(loaded.entries.size(), written.size());
  for (size_t i = 0; i < written.size(); ++i) ASSERT_EQ(loaded.entries[i].id, written[i].id) << i;
  ASSERT_EQ(loaded.skipped.size(), 1u);
  EXPECT_NE(loaded.skipped[0].find("experience.jsonl:" + std::to_string(bad_line) + ":"), std::string::npos)
      << loaded.skipped[0];
}

TEST(Store, DirectoryFromEnvironment) {
  ::setenv("KGO_EXPERIENCE_DIR", "/tmp/x_exp", 1);
  EXPECT_EQ(default_store_dir(), "/tmp/x_exp");
  ::unsetenv("KGO_EXPERIENCE_DIR");
  ::setenv("XDG_DATA_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(default_store_dir(), "/tmp/xdg/kgo/experience");
  ::unsetenv("XDG_DATA_HOME");
  EXPECT_EQ(store_dir(std::filesystem::path("/flag")), "/flag");
}

}  // namespace
}  // namespace kgo::experience
