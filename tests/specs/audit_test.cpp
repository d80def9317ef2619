#include "specs/audit.hpp"

#include <gtest/gtest.h>

#include "core/git.hpp"
#include "core/workspace.hpp"
#include "specs/operations.hpp"
#include "specs/text.hpp"
#include "tests/test_util.hpp"

namespace kgo::specs {
namespace {

namespace fs = std::filesystem;
const std::string k_hopper = "docs/hardware-specs/hardware_specs_hopper.md";

int fixture_line(const std::string& needle) {
  auto lines = split_lines(test::read(fs::path(KGO_FIXTURE_WIKI) / k_hopper));
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find(needle) != std::string::npos) return static_cast<int>(i + 1);
  }
  return 0;
}

// A workspace (kgo.json + README, optionally git) on a private copy of the fixture wiki,
// with the H100 bandwidth registered.
struct Workspace {
  test::TempDir dir;
  fs::path ws = dir / "ws";
  fs::path wiki = dir / "wiki";
  int bw_line = fixture_line("| Memory Bandwidth | 3.35 TB/s |");

  Workspace() {
    fs::copy(KGO_FIXTURE_WIKI, wiki, fs::copy_options::recursive);
    fs::create_directories(ws / "memory");
    fs::create_directories(ws / "plans");
    core::WorkspaceConfig cfg;
    cfg.name = "t";
    cfg.platform = "H100";
    cfg.dtype = "bf16";
    cfg.wiki_path = wiki.string();
    core::save_config(ws, cfg);
    test::write(ws / "README.md", "# t\n\n## Hardware Spec\n\nTBD\n\n## Roofline Analysis\n\nTBD\n");
    core::GitRepo repo = core::GitRepo::init(ws);  // spec add commits, so a workspace has git
    repo.add_all();
    repo.commit("init");
    add_spec(ws, std::nullopt, "H100 SXM HBM bandwidth: 3.35 TB/s <- <gpu-wiki>/" + k_hopper + ":L" + std::to_string(bw_line));
  }

  void append(const std::string& rel, const std::string& text) {
    std::string old = test::read(ws / rel);
    test::write(ws / rel, old + text + "\n");
  }
};

std::vector<std::string> sites(const AuditReport& r) {
  std::vector<std::string> out;
  for (const auto& f : r.findings) out.push_back(f.file + ":" + std::to_string(f.line) + ":" + f.kind);
  return out;
}

TEST(Audit, RegisteredWorkspaceIsClean) {
  Workspace w;
  AuditReport r = audit_workspace(w.ws, std::nullopt, false);
  EXPECT_TRUE(r.clean()) << render_text(r);
  EXPECT_EQ(r.registry_entries, 1u);
  EXPECT_EQ(r.citations_checked, 1u);  // the README's Hardware Spec line
}

TEST(Audit, PlantedViolationsAreEachFound) {
  Workspace w;
  size_t readme_line = split_lines(test::read(w.ws / "README.md")).size() + 1;
  w.append("README.md", "HBM peak is 3.35 TB/s.");
  test::write(w.ws / "plans/v1_plan.md", "# plan\n| SM count | 132 |\n");                // plan line 2
  test::write(w.ws / "memory/v1.json", "{\n  \"notes\": \"L2 cache is 50 MB\"\n}\n");    // record line 2
  int fp8 = fixture_line("| **FP8 (Tensor Core)** | 1,978.9 |");
  test::write(w.ws / "bench_report.md", "FP8: 1,978.9 TFLOPS <- <gpu-wiki>/" + k_hopper + ":L" + std::to_string(fp8) + "\n");
  AuditReport r = audit_workspace(w.ws, std::nullopt, false);
  auto got = sites(r);
  std::vector<std::string> want = {"README.md:" + std::to_string(readme_line) + ":uncited_number", "bench_report.md:1:unregistered_citation",
                                   "memory/v1.json:2:uncited_number", "plans/v1_plan.md:2:uncited_number"};
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, want) << render_text(r);
}

// Attack: hand edits to a README line that holds a valid citation. Every hardware number on it
// must trace to the citation: restated (any unit) or derived in a step the audit recomputes.
TEST(Audit, EveryNumberOnACitedLineTracesToItsCitation) {
  Workspace w;
  const std::string cite = "3.35 TB/s <- <gpu-wiki>/" + k_hopper + ":L" + std::to_string(w.bw_line);
  size_t first = split_lines(test::read(w.ws / "README.md")).size() + 1;
  w.append("README.md", "- HBM bandwidth: " + cite + " (3350 GB/s)");                   // restated: traced
  w.append("README.md", "- bandwidth >= 2.68 TB/s = 0.8 x " + cite);                      // derived: traced
  w.append("README.md", "- half: 1.675 TB/s = " + cite + " / 2");                         // derived: traced
  w.append("README.md", "- HBM bandwidth: " + cite + "; L2 cache: 99 MB");                // a wrong number beside it
  w.append("README.md", "- bandwidth >= 2.69 TB/s = 0.8 x " + cite);                      // an altered result
  w.append("README.md", "- HBM bandwidth: 3.36 TB/s, i.e. " + cite);                      // an altered restatement
  w.append("README.md", "- SMs: 140 SMs beside " + cite);                                 // another metric's number
  AuditReport r = audit_workspace(w.ws, std::nullopt, false);
  auto got = sites(r);
  std::vector<std::string> want;
  for (size_t k : {3, 4, 5, 6}) want.push_back("README.md:" + std::to_string(first + k) + ":uncited_number");
  EXPECT_EQ(got, want) << render_text(r);
  for (const auto& f : r.findings) EXPECT_NE(f.reason.find("cited there: 3.35 TB/s"), std::string::npos) << f.reason;
}

TEST(Audit, DriftReportsOldAndNewTextAndMoves) {
  Workspace w;
  auto lines = split_lines(test::read(w.wiki / k_hopper));
  std::string old = lines[w.bw_line - 1];
  lines.insert(lines.begin(), "inserted");
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  test::write(w.wiki / k_hopper, text);
  AuditReport r = audit_workspace(w.ws, std::nullopt, false);
  ASSERT_FALSE(r.clean());
  const Finding& d = r.findings[0];
  EXPECT_EQ(d.kind, "drift");
  EXPECT_EQ(d.file, "specs.json");
  EXPECT_EQ(d.old_text, old);
  EXPECT_EQ(d.moved_to, w.bw_line + 1);
  EXPECT_NE(d.reason.find("moved to L" + std::to_string(w.bw_line + 1)), std::string::npos) << d.reason;
}

// An HTML page's headings label their sections as markdown headings do: a GPU name holding a size ("80GB") in
// a section headed "(measured)" is a reading, the same row under another heading is flagged.
TEST(Audit, HtmlHeadingsLabelTheirSections) {
  Workspace w;
  const std::string row = "<tr><td>gpu</td><td>NVIDIA H100 80GB HBM3</td></tr>\n";
  test::write(w.ws / "report/report.html", "<html><body>\n<h1>Report</h1>\n<h2>Environment (measured)</h2>\n<table>\n" + row +
                                               "</table>\n<h2>Notes</h2>\n<table>\n" + row + "</table>\n</body></html>\n");
  AuditReport r = audit_workspace(w.ws, std::nullopt, false);
  EXPECT_EQ(sites(r), std::vector<std::string>{"report/report.html:9:uncited_number"}) << render_text(r);
}

TEST(Audit, HistoryFindsWhatTheWorkTreeNoLongerHas) {
  Workspace w;
  core::GitRepo repo = core::GitRepo::open(w.ws);
  test::write(w.ws / "plans/v1_plan.md", "L2 cache is 50 MB\n");
  repo.add_all();
  std::string bad = repo.commit("bad plan");
  test::write(w.ws / "plans/v1_plan.md", "see the README\n");
  repo.add_all();
  repo.commit("fixed plan");
  EXPECT_TRUE(audit_workspace(w.ws, std::nullopt, false).clean());
  AuditReport r = audit_workspace(w.ws, std::nullopt, true);
  ASSERT_EQ(r.findings.size(), 1u) << render_text(r);
  EXPECT_EQ(r.findings[0].commit, bad);
  EXPECT_EQ(r.findings[0].file, "plans/v1_plan.md");
  EXPECT_GE(r.commits_checked, 3u);
}

TEST(Audit, ArchivedPaths) {
  for (std::string p : {"README.md", "bench_report.md", "benchmark.md", "plans/v1_plan.md", "memory/v3.json",
                        "profiles/v1/summary.md", "plans/sub/x.md"}) {
    EXPECT_TRUE(is_archived_path(p)) << p;
  }
  for (std::string p : {"kernel.py", "kgo.json", "specs.json", ".kgo/x.md", "memory/v1.md", "plans/x.json",
                        "notes/x.md", "profiles/.hidden/x.md"}) {
    EXPECT_FALSE(is_archived_path(p)) << p;
  }
}

}  // namespace
}  // namespace kgo::specs
