#include "specs/verify.hpp"

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/workspace.hpp"
#include "gpu-wiki-index/metrics.hpp"
#include "gpu-wiki-index/units.hpp"
#include "specs/text.hpp"

namespace kgo::specs {

namespace fs = std::filesystem;

namespace {

Error rejected(const std::string& msg) { return Error(msg, ExitCode::citation_rejected); }

std::string where(const std::string& file, int line) { return file + ":L" + std::to_string(line); }

std::string says(const std::string& line_text) { return "; the line says: \"" + trim(line_text) + "\""; }

std::string describe(const wiki::Fact& f) {
  std::string v = f.value_text.empty() ? format_number(f.value) : trim(f.value_text);
  if (!f.unit.empty() && v.find(f.unit) == std::string::npos) v += " " + f.unit;
  return f.metric + " = " + v + " for " + f.product + (f.measured ? " (measured)" : "");
}

std::string describe_all(const std::vector<wiki::Fact>& facts) {
  std::string out;
  for (const auto& f : facts) out += (out.empty() ? "" : "; ") + describe(f);
  return out;
}

bool is_heading(const std::string& line, int* level) {
  int n = 0;
  while (n < static_cast<int>(line.size()) && line[n] == '#') ++n;
  if (n == 0 || n > 6 || n >= static_cast<int>(line.size()) || line[n] != ' ') return false;
  *level = n;
  return true;
}

std::string heading_key(const std::string& text) {
  std::string t = trim(wiki::plain_text(text));
  while (!t.empty() && (t.back() == '#' || t.back() == ' ')) t.pop_back();
  std::string out;
  for (char c : lower(t)) {
    if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += c;
  }
  return trim(out);
}

// The claim's value in base units; throws when its unit is unknown.
wiki::Quantity claimed_quantity(const Claim& c) {
  auto q = wiki::normalize(c.value, c.unit);
  if (!q) {
    throw rejected("unit '" + c.unit + "' of '" + c.value_text + " " + c.unit +
                   "' is not one kgo knows; write it as the wiki does (TB/s, GB/s, TFLOPS, MHz, MB, KB, W, us, "
                   "or no unit for counts)");
  }
  return *q;
}

// The fact's value in base units; a unit normalize() does not know ("32-bit") is read as the
// metric's own dimension.
wiki::Quantity fact_quantity(const wiki::Fact& f) {
  if (auto q = wiki::normalize(f.value, f.unit)) return *q;
  std::string dim = wiki::metric_dimension(f.metric);
  return wiki::Quantity{f.value, dim.empty() ? "count" : dim};
}

bool line_shows_value(const std::string& line, double value) {
  for (const auto& t : numbers_in(line)) {
    if (same_value(t.value, value)) return true;
  }
  return false;
}

}  // namespace

std::string other_qualifier(const std::string& metric) {
  const std::string suffix = "_sparse";
  if (metric.size() > suffix.size() && metric.compare(metric.size() - suffix.size(), suffix.size(), suffix) == 0) {
    return metric.substr(0, metric.size() - suffix.size());
  }
  return metric + suffix;
}

WikiView::WikiView(wiki::WikiIndex index) : m_index(std::move(index)) {
  std::error_code ec;
  m_root = fs::canonical(m_index.root(), ec);
  if (ec) m_root = m_index.root();
}

const WikiView::File& WikiView::file(const std::string& rel) {
  if (auto it = m_files.find(rel); it != m_files.end()) return it->second;
  check_relative_path(rel);
  fs::path p = m_root / rel;
  std::error_code ec;
  if (!fs::exists(p, ec)) {
    throw rejected("the cited file " + rel + " does not exist in the wiki at " + m_root.string() +
                   "; check the path (`kgo wiki lookup` prints cited specs)");
  }
  fs::path real = fs::canonical(p, ec);
  std::string root_s = m_root.string() + "/";
  if (ec || real.string().compare(0, root_s.size(), root_s) != 0) {
    throw rejected("the cited path " + rel + " leaves the wiki through a symlink (it resolves to " +
                   real.string() + "); cite a file inside " + m_root.string());
  }
  if (!fs::is_regular_file(real, ec)) throw rejected("the cited path " + rel + " is not a regular file");
  auto content = core::try_read_file(real);
  if (!content) throw rejected("the cited file " + rel + " is not readable; check its permissions");
  File f;
  f.rel = real.string().substr(root_s.size());
  f.lines = split_lines(*content);
  f.sha256 = core::sha256_hex(*content);
  return m_files.emplace(rel, std::move(f)).first->second;
}

int resolve_section(WikiView& wiki, const std::string& file, const std::string& section,
                    const std::string& metric, const std::string& product) {
  const WikiView::File& f = wiki.file(file);
  const std::string want = heading_key(section);
  std::vector<std::string> headings;
  bool in_fence = false;
  bool found_heading = false;
  for (size_t i = 0; i < f.lines.size(); ++i) {
    if (f.lines[i].rfind("```", 0) == 0) in_fence = !in_fence;
    int level = 0;
    if (in_fence || !is_heading(f.lines[i], &level)) continue;
    std::string key = heading_key(f.lines[i].substr(level + 1));
    headings.push_back(trim(f.lines[i].substr(level + 1)));
    if (key != want) continue;
    found_heading = true;
    bool fence = false;
    for (size_t j = i + 1; j < f.lines.size(); ++j) {
      if (f.lines[j].rfind("```", 0) == 0) fence = !fence;
      int l2 = 0;
      if (!fence && is_heading(f.lines[j], &l2) && l2 <= level) break;
      for (const auto& fact : wiki.index().facts_at(f.rel, static_cast<int>(j + 1))) {
        if (fact.product == product && fact.metric == metric) return static_cast<int>(j + 1);
      }
    }
  }
  if (found_heading) {
    throw rejected("section '" + section + "' of " + file + " has no line stating " + metric + " for " +
                   product + "; cite the line itself as :L<line>");
  }
  std::string list;
  for (size_t k = 0; k < headings.size() && k < 12; ++k) list += (k ? ", " : "") + ("'" + headings[k] + "'");
  throw rejected("no heading '" + section + "' in " + file + (list.empty() ? "" : "; its headings are " + list));
}

Verified verify_claim(WikiView& wiki, const Claim& claim) {
  Verified v;
  const WikiView::File& f = wiki.file(claim.citation.path);
  v.citation = claim.citation;
  if (claim.citation.line == 0) {
    v.citation.line = resolve_section(wiki, claim.citation.path, claim.citation.section, claim.metric, claim.product);
    v.citation.section.clear();
  }
  int line = v.citation.line;
  if (line < 1 || line > static_cast<int>(f.lines.size())) {
    throw rejected(claim.citation.path + " has " + std::to_string(f.lines.size()) + " lines; L" +
                   std::to_string(line) + " does not exist");
  }
  v.line_text = f.lines[line - 1];
  v.file_sha256 = f.sha256;
  v.line_sha256 = core::sha256_hex(v.line_text);
  const std::string at = where(claim.citation.path, line);
  std::vector<wiki::Fact> facts = wiki.index().facts_at(f.rel, line);
  if (facts.empty()) {
    throw rejected(at + " states no hardware figure kgo can read" + says(v.line_text));
  }
  std::vector<wiki::Fact> mine;
  for (const auto& fact : facts) {
    if (fact.product == claim.product) mine.push_back(fact);
  }
  if (mine.empty()) {
    throw rejected(at + " states figures for " + facts[0].product + ", not for the workspace's platform " +
                   claim.product + " (" + describe_all(facts) + ")" + says(v.line_text));
  }
  v.quantity = claimed_quantity(claim);
  const std::string shown = claim.value_text + (claim.unit.empty() ? "" : " " + claim.unit);
  std::vector<wiki::Fact> same_metric, other;
  for (const auto& fact : mine) {
    if (fact.metric == claim.metric) same_metric.push_back(fact);
    if (fact.metric == other_qualifier(claim.metric)) other.push_back(fact);
  }
  auto matches = [&](const wiki::Fact& fact) {
    wiki::Quantity q = fact_quantity(fact);
    return q.dimension == v.quantity.dimension && same_value(q.value, v.quantity.value);
  };
  for (const auto& fact : same_metric) {
    if (!matches(fact)) continue;
    if (!line_shows_value(v.line_text, fact.value)) {
      throw rejected(at + ": the index reads " + describe(fact) + ", but that number is not written on the line" +
                     says(v.line_text));
    }
    v.fact = fact;
    return v;
  }
  bool sparse = wiki::is_sparse_metric(claim.metric);
  for (const auto& fact : other) {
    if (!matches(fact)) continue;
    throw rejected(at + ": " + shown + " is the " + (sparse ? "dense" : "sparse") + " figure (" + describe(fact) +
                   "), but the claim is for " + claim.metric + (sparse ? " (sparse)" : " (dense)") +
                   (same_metric.empty() ? "" : "; the " + std::string(sparse ? "sparse" : "dense") + " figure there is " +
                                                    describe_all(same_metric)) +
                   says(v.line_text));
  }
  if (same_metric.empty()) {
    throw rejected(at + " does not state " + claim.metric + " for " + claim.product + "; it states " +
                   describe_all(mine) + says(v.line_text));
  }
  wiki::Quantity q = fact_quantity(same_metric[0]);
  if (q.dimension != v.quantity.dimension) {
    throw rejected(at + ": " + shown + " is measured in " + v.quantity.dimension + ", but " + describe(same_metric[0]) +
                   " is in " + q.dimension + says(v.line_text));
  }
  throw rejected(at + " states " + describe_all(same_metric) + ", not " + shown + " (compared after unit normalization: " +
                 format_number(q.value) + " vs " + format_number(v.quantity.value) + " " + q.dimension + ")" +
                 says(v.line_text));
}

SpecEntry make_entry(const Verified& v, const Claim& claim, const std::string& label) {
  SpecEntry e;
  e.metric = claim.metric;
  e.label = label;
  e.product = claim.product;
  e.measured = v.fact.measured;
  e.approximate = v.fact.approximate;
  e.value = claim.value;
  e.value_text = claim.value_text;
  e.unit = claim.unit;
  e.si_value = v.quantity.value;
  e.dimension = v.quantity.dimension;
  e.citation = format_citation(v.citation);
  e.file = v.citation.path;
  e.line = v.citation.line;
  e.line_text = v.line_text;
  e.line_sha256 = v.line_sha256;
  e.file_sha256 = v.file_sha256;
  e.added_at = core::utc_now_iso();
  return e;
}

}  // namespace kgo::specs
