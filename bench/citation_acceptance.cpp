// Benchmark: how many right citations kgo accepts and how many wrong ones it refuses, per wiki
// layout: the citation lists of tests/specs/citations/ against the shared third-party fixtures
// and the small wikis written after public layouts (tests/data/wikis/). Prints one row per wiki
// (correct accepted, wrong accepted, the layout) and the totals, then every case decided against
// its expectation with kgo's reason. Goal: >= 90% of correct accepted, 0 wrong accepted.
// Usage: kgo_citation_bench [shared-fixtures-dir]   (default: the fixtures CMake found)
#include <cstdio>
#include <filesystem>
#include <string>

#include "../tests/specs/citation_lists.hpp"

namespace {

struct Wiki {
  const char* list;
  std::string dir;
  const char* layout;
};

std::string fixture(int argc, char** argv, const char* name, const char* found) {
  if (argc > 1) return (std::filesystem::path(argv[1]) / name).string();
  return found;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string src = KGO_SOURCE_DIR, data = src + "/tests/data/wikis/";
  const Wiki wikis[] = {
      {"atrex-gpu-wiki-v0.2.0", fixture(argc, argv, "atrex-gpu-wiki-v0.2.0", KGO_FIXTURE_WIKI_V020),
       "markdown spec sheets, a section per product"},
      {"atrex-gpu-wiki-head", fixture(argc, argv, "atrex-gpu-wiki-head", KGO_FIXTURE_WIKI_HEAD),
       "JSON records, one file per product"},
      {"spec-table", data + "spec-table", "one comparison table, a column per product"},
      {"spec-json", data + "spec-json", "machine-made JSON keyed by slug, units in a field table"},
      {"blackwell-notes", data + "blackwell-notes", "notes pages: GPU rows, bullets, sentences"},
      {"kernel-notes", data + "kernel-notes", "kernel write-ups: peaks in passing, benchmark tables"},
  };
  int correct = 0, correct_ok = 0, wrong = 0, wrong_ok = 0, lists_run = 0;
  std::string reports;
  std::printf("%-24s %18s %16s  %s\n", "wiki", "correct accepted", "wrong accepted", "layout");
  for (const auto& w : wikis) {
    if (w.dir.empty() || !std::filesystem::is_directory(w.dir)) {
      std::printf("%-24s %18s %16s  %s\n", w.list, "skipped", "(no wiki)", w.layout);
      continue;
    }
    kgo::specs::lists::Outcome o = kgo::specs::lists::run(src, w.dir, w.list);
    ++lists_run;
    correct += o.correct;
    correct_ok += o.correct_ok;
    wrong += o.wrong;
    wrong_ok += o.wrong_ok;
    reports += o.bad_lines + o.report;
    std::printf("%-24s %9d/%-3d %5.1f%% %10d/%-3d   %s\n", w.list, o.correct_ok, o.correct,
                o.correct ? 100.0 * o.correct_ok / o.correct : 0.0, o.wrong_ok, o.wrong, w.layout);
  }
  std::printf("%-24s %9d/%-3d %5.1f%% %10d/%-3d   %d wikis\n", "total", correct_ok, correct,
              correct ? 100.0 * correct_ok / correct : 0.0, wrong_ok, wrong, lists_run);
  std::printf("\ndecided against the list:\n%s", reports.empty() ? "  none\n" : reports.c_str());
  return 0;
}
