// WikiIndex::load: the on-disk cache is used when files are unchanged and invalidated when
// one changes, appears or disappears.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>

#include "core/error.hpp"
#include "core/files.hpp"
#include "gpu-wiki-index/index.hpp"
#include "gpu-wiki-index/wiki_location.hpp"
#include "tests/test_util.hpp"

namespace kgo::wiki {
namespace {

namespace fs = std::filesystem;

class CacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* old = std::getenv("XDG_CACHE_HOME");
    if (old) m_old = old;
    ::setenv("XDG_CACHE_HOME", (cache / "xdg").c_str(), 1);
    write_old(wiki / "docs/h.md", "## NVIDIA H100 SXM (sm_90, Hopper)\n- HBM bandwidth: 3.35 TB/s\n");
  }
  void TearDown() override {
    if (m_old) ::setenv("XDG_CACHE_HOME", m_old->c_str(), 1);
    else ::unsetenv("XDG_CACHE_HOME");
  }
  // Writes a file and dates it an hour back, so its mtime cannot be "racily" close to the cache.
  void write_old(const fs::path& p, const std::string& text) {
    test::write(p, text);
    fs::last_write_time(p, fs::file_time_type::clock::now() - std::chrono::hours(1));
  }
  WikiIndex load() { return WikiIndex::load(WikiLocation{wiki.path(), false, "--wiki"}); }
  double bandwidth() { return load().find("H100 SXM", "hbm_bandwidth").at(0).value; }

  test::TempDir wiki, cache;
  std::optional<std::string> m_old;
};

TEST_F(CacheTest, WritesTheCacheUnderXdgCacheHome) {
  EXPECT_DOUBLE_EQ(bandwidth(), 3.35);
  fs::path p = index_cache_path(wiki.path());
  EXPECT_EQ(p.parent_path(), cache / "xdg" / "kgo");
  EXPECT_TRUE(fs::exists(p));
}

TEST_F(CacheTest, FallsBackToHomeCache) {
  ::unsetenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  ASSERT_NE(home, nullptr);
  EXPECT_EQ(index_cache_path(wiki.path()).parent_path(), fs::path(home) / ".cache" / "kgo");
}

TEST_F(CacheTest, UnchangedFilesAreReadFromTheCache) {
  EXPECT_DOUBLE_EQ(bandwidth(), 3.35);
  // Tamper with the cached value: a load that trusts the cache returns it, which proves the
  // wiki file was not parsed again.
  fs::path p = index_cache_path(wiki.path());
  std::string text = test::read(p);
  auto at = text.find("\t3.35\t");  // the shortest text that reads back as the same double
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, 6, "\t9.99\t");
  test::write(p, text);
  EXPECT_DOUBLE_EQ(bandwidth(), 9.99);
}

TEST_F(CacheTest, AChangedFileIsParsedAgain) {
  EXPECT_DOUBLE_EQ(bandwidth(), 3.35);
  write_old(wiki / "docs/h.md", "## NVIDIA H100 SXM (sm_90, Hopper)\n- HBM bandwidth: 3.90 TB/s\n");
  EXPECT_DOUBLE_EQ(bandwidth(), 3.9);
}

// Size and mtime equal to the cached ones, but the cache says it was written before that
// mtime: the fast path must not trust it, and the content hash catches the edit.
TEST_F(CacheTest, SameStatNewerThanTheCacheIsCaughtByTheHash) {
  fs::path f = wiki / "docs/h.md";
  auto stamp = fs::last_write_time(f);
  EXPECT_DOUBLE_EQ(bandwidth(), 3.35);
  test::write(f, "## NVIDIA H100 SXM (sm_90, Hopper)\n- HBM bandwidth: 3.36 TB/s\n");
  fs::last_write_time(f, stamp);
  fs::path p = index_cache_path(wiki.path());
  std::string text = test::read(p);
  size_t tab1 = text.find('\t'), tab2 = text.find('\t', tab1 + 1), nl = text.find('\n');
  text.replace(tab2 + 1, nl - tab2 - 1, std::to_string(0));
  test::write(p, text);
  EXPECT_DOUBLE_EQ(bandwidth(), 3.36);
}

TEST_F(CacheTest, RecentEditsWithTheSameStatAreRehashed) {
  fs::path f = wiki / "docs/h.md";
  test::write(f, "## NVIDIA H100 SXM (sm_90, Hopper)\n- HBM bandwidth: 3.35 TB/s\n");
  auto stamp = fs::last_write_time(f);
  EXPECT_DOUBLE_EQ(bandwidth(), 3.35);
  test::write(f, "## NVIDIA H100 SXM (sm_90, Hopper)\n- HBM bandwidth: 3.45 TB/s\n");
  fs::last_write_time(f, stamp);
  EXPECT_DOUBLE_EQ(bandwidth(), 3.45);
}

TEST_F(CacheTest, AddedAndRemovedFiles) {
  EXPECT_EQ(load().products(), (std::vector<std::string>{"H100 SXM"}));
  write_old(wiki / "docs/h200.md", "## NVIDIA H200 (sm_90, Hopper)\n- HBM bandwidth: 4.8 TB/s\n");
  EXPECT_EQ(load().products(), (std::vector<std::string>{"H100 SXM", "H200"}));
  fs::remove(wiki / "docs/h200.md");
  EXPECT_EQ(load().products(), (std::vector<std::string>{"H100 SXM"}));
  EXPECT_TRUE(load().find("H200", "hbm_bandwidth").empty());
}

// The fingerprint is the same with and without the cache, and follows every content change.
TEST_F(CacheTest, FingerprintFromTheCacheEqualsHashingEveryFile) {
  write_old(wiki / "README.md", "# wiki\n");
  write_old(wiki / "diagram.svg", "<svg/>\n");  // not a wiki format: not indexed
  auto expected = [&] {
    std::string manifest;
    for (const char* rel : {"README.md", "docs/h.md"}) {
      manifest += std::string(rel) + " " + core::sha256_hex(test::read(wiki / rel)) + "\n";
    }
    return "sha256:" + core::sha256_hex(manifest);
  };
  fs::remove(index_cache_path(wiki.path()));
  const std::string cold = wiki_fingerprint(wiki.path());  // no cache: every file hashed
  EXPECT_EQ(cold, expected());
  load();                                                  // writes the cache
  ASSERT_TRUE(fs::exists(index_cache_path(wiki.path())));
  EXPECT_EQ(wiki_fingerprint(wiki.path()), cold);
  write_old(wiki / "docs/h.md", "## NVIDIA H100 SXM (sm_90, Hopper)\n- HBM bandwidth: 3.90 TB/s\n");
  EXPECT_EQ(wiki_fingerprint(wiki.path()), expected());   // stale cache entry: hashed again
  EXPECT_NE(wiki_fingerprint(wiki.path()), cold);
  // A recent edit that keeps size and mtime is not trusted to the cache either.
  load();
  fs::path f = wiki / "docs/h.md";
  test::write(f, "## NVIDIA H100 SXM (sm_90, Hopper)\n- HBM bandwidth: 3.35 TB/s\n");
  EXPECT_EQ(wiki_fingerprint(wiki.path()), expected());
}

// Enough files that load() parses them on several threads: the same facts, products, issues and
// order as the single-threaded build(), and the fingerprint wiki_fingerprint() computes.
TEST_F(CacheTest, ParallelLoadEqualsBuildAndFingerprint) {
  for (int i = 0; i < 150; ++i) {
    std::string p = "G" + std::to_string(1000 + i) + " SXM";
    write_old(wiki / ("docs/d" + std::to_string(i % 7) + "/f" + std::to_string(i) + ".md"),
              "## NVIDIA " + p + " (sm_90, Hopper)\n| Metric | Value |\n|---|---|\n| HBM bandwidth | " +
                  std::to_string(1 + i) + ".5 TB/s |\n| L2 cache | " + std::to_string(i) + " MB |\n"
                  "| SM count | 1" + std::to_string(i) + " (H100 PCIe) |\nIt reached " + std::to_string(i) + " TB/s.\n");
  }
  WikiIndex loaded = load();
  WikiIndex built = WikiIndex::build(wiki.path());
  ASSERT_EQ(loaded.facts().size(), built.facts().size());
  EXPECT_EQ(loaded.facts().size(), 1u + 2 * 150);
  for (size_t k = 0; k < built.facts().size(); ++k) {
    const Fact& a = loaded.facts()[k];
    const Fact& b = built.facts()[k];
    EXPECT_EQ(a.file + ":" + std::to_string(a.line) + a.product + a.metric + a.value_text,
              b.file + ":" + std::to_string(b.line) + b.product + b.metric + b.value_text);
  }
  EXPECT_EQ(loaded.products(), built.products());
  EXPECT_EQ(loaded.check().size(), built.check().size());
  EXPECT_EQ(loaded.fingerprint(), wiki_fingerprint(wiki.path()));
  EXPECT_EQ(load().fingerprint(), loaded.fingerprint());  // from the cache, the same
  EXPECT_EQ(WikiIndex::load_product(WikiLocation{wiki.path(), false, "--wiki"}, "G1001").fingerprint(),
            loaded.fingerprint());
}

TEST_F(CacheTest, LoadEqualsBuild) {
  write_old(wiki / "README.md", "# W\n## Product aliases\n| Alias | Product |\n|---|---|\n| H100 | H100 SXM |\n");
  write_old(wiki / "docs/x.json",
            R"({"product": "H20", "facts": [{"metric": "hbm_bandwidth", "value": "~4.0", "unit": "TB/s"}]})");
  write_old(wiki / "docs/bad.md", "## NVIDIA H20 (sm_90, Hopper)\nIt does 4.0 TB/s\ttabbed\n");
  for (int pass = 0; pass < 2; ++pass) {
    WikiIndex a = load();
    WikiIndex b = WikiIndex::build(wiki.path());
    ASSERT_EQ(a.facts().size(), b.facts().size());
    for (size_t i = 0; i < a.facts().size(); ++i) {
      const Fact& x = a.facts()[i];
      const Fact& y = b.facts()[i];
      EXPECT_EQ(std::tie(x.product, x.metric, x.label, x.value, x.unit, x.value_text, x.approximate, x.measured,
                         x.core, x.file, x.line),
                std::tie(y.product, y.metric, y.label, y.value, y.unit, y.value_text, y.approximate, y.measured,
                         y.core, y.file, y.line));
    }
    ASSERT_EQ(a.check().size(), b.check().size());
    for (size_t i = 0; i < a.check().size(); ++i) EXPECT_EQ(a.check()[i].message, b.check()[i].message);
    EXPECT_EQ(a.aliases(), b.aliases());
    EXPECT_EQ(a.resolve_product("H100"), "H100 SXM");
  }
}

TEST_F(CacheTest, LoadProductKeepsOneProductAndFallsBackWhenStale) {
  write_old(wiki / "README.md", "# W\n## Product aliases\n| Alias | Product |\n|---|---|\n| H100 | H100 SXM |\n");
  write_old(wiki / "docs/h200.md", "## NVIDIA H200 (sm_90, Hopper)\n- HBM bandwidth: 4.8 TB/s\n");
  write_old(wiki / "measured/H100-2026-11-20.md",
            "---\nproduct: H100\nkind: measured\n---\n- hbm_bandwidth: 3.0 TB/s (copy)\n");
  WikiLocation loc{wiki.path(), false, "--wiki"};
  EXPECT_EQ(load().facts().size(), 3u);  // writes the cache
  for (int pass = 0; pass < 2; ++pass) {  // the first reads the fresh cache, the second again
    WikiIndex one = WikiIndex::load_product(loc, "h100");
    EXPECT_EQ(one.products(), (std::vector<std::string>{"H100 SXM", "H200"}));
    EXPECT_EQ(one.arch("H200"), "Hopper");
    ASSERT_EQ(one.facts().size(), 2u);  // the datasheet line and the alias-scoped measured one
    EXPECT_TRUE(one.find("H200", "hbm_bandwidth").empty());
    EXPECT_DOUBLE_EQ(one.find("H100 SXM", "hbm_bandwidth", true).at(0).value, 3.0);
  }
  write_old(wiki / "docs/h20.md", "## NVIDIA H20 (sm_90, Hopper)\n- HBM bandwidth: 4.0 TB/s\n");
  EXPECT_DOUBLE_EQ(WikiIndex::load_product(loc, "H20").find("H20", "hbm_bandwidth").at(0).value, 4.0);
  write_old(wiki / "docs/h200.md", "## NVIDIA H200 (sm_90, Hopper)\n- HBM bandwidth: 4.9 TB/s\n");
  EXPECT_DOUBLE_EQ(WikiIndex::load_product(loc, "H200").find("H200", "hbm_bandwidth").at(0).value, 4.9);
  EXPECT_THROW(WikiIndex::load_product(loc, "RTX9999").resolve_product("RTX9999"), Error);
}

TEST_F(CacheTest, UnwritableCacheStillLoads) {
  test::write(cache / "xdg", "a file where the cache directory should be");
  EXPECT_DOUBLE_EQ(bandwidth(), 3.35);
}

TEST_F(CacheTest, CorruptCacheIsRebuilt) {
  EXPECT_DOUBLE_EQ(bandwidth(), 3.35);
  test::write(index_cache_path(wiki.path()), "garbage\tgarbage\n\x01\x02");
  EXPECT_DOUBLE_EQ(bandwidth(), 3.35);
}

}  // namespace
}  // namespace kgo::wiki
