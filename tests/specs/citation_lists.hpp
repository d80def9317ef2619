#pragma once
// Citation lists (tests/specs/citations/<name>.tsv: expect, platform, statement, what) checked the
// way `kgo spec add` checks a statement; shared by fixture_citations_test and
// bench/citation_acceptance.cpp, so the rates the bench prints are the test's.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "specs/operations.hpp"
#include "specs/verify.hpp"

namespace kgo::specs::lists {

struct Case {
  bool accept = false;
  std::string platform, statement, what;
  int line = 0;
};

struct Outcome {
  int correct = 0, correct_ok = 0, wrong = 0, wrong_ok = 0;
  std::string report;  // every case decided against its expectation, with kgo's reason
  std::string bad_lines;  // lines of the list that are not cases
};

inline std::vector<Case> load_cases(const std::string& tsv, std::string* bad_lines) {
  std::ifstream in(tsv);
  std::vector<Case> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string part; std::getline(ss, part, '\t');) f.push_back(part);
    if (f.size() != 4 || (f[0] != "accept" && f[0] != "reject")) {
      *bad_lines += tsv + ":" + std::to_string(n) + ": want expect<TAB>platform<TAB>statement<TAB>what\n";
      continue;
    }
    out.push_back(Case{f[0] == "accept", f[1], f[2], f[3], n});
  }
  return out;
}

// Empty when `kgo spec add` would register the statement for the platform; else why not.
inline std::string refusal(WikiView& view, const Case& c) {
  try {
    std::string product = view.index().resolve_product(c.platform);
    SpecStatement st = parse_statement(c.statement);
    std::string metric = metric_for_text(st.metric_text);
    for (const auto& p : products_in_text(st.metric_text, view.index())) {
      if (p != product) return "names " + p;
    }
    verify_claim(view, Claim{metric, product, st.value, st.value_text, st.unit, st.citation});
    return "";
  } catch (const Error& e) {
    std::string why = e.what();
    return why.empty() ? "refused" : why;
  }
}

// Runs list `name` against the wiki at `wiki_dir`.
inline Outcome run(const std::string& source_dir, const std::string& wiki_dir, const std::string& name) {
  Outcome o;
  WikiView view(wiki::WikiIndex::build(wiki_dir));
  for (const auto& c : load_cases(source_dir + "/tests/specs/citations/" + name + ".tsv", &o.bad_lines)) {
    std::string why = refusal(view, c);
    bool accepted = why.empty();
    (c.accept ? o.correct : o.wrong) += 1;
    if (c.accept && accepted) ++o.correct_ok;
    if (!c.accept && accepted) ++o.wrong_ok;
    if (accepted != c.accept) {
      o.report += "  " + name + ".tsv:" + std::to_string(c.line) + " [" + c.what + "] " + c.platform + " | " +
                  c.statement + (accepted ? "\n    ACCEPTED (wrong)\n" : "\n    refused: " + why.substr(0, 300) + "\n");
    }
  }
  return o;
}

}  // namespace kgo::specs::lists
