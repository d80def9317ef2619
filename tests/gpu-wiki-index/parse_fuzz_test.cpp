// Property tests: random and mutated markdown / JSON never crash the parser, and every fact it
// returns is stated on its own line (the value text is there and reads back as the value),
// with a canonical metric and a unit of that metric's dimension.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "gpu-wiki-index/metrics.hpp"
#include "gpu-wiki-index/parse.hpp"
#include "gpu-wiki-index/units.hpp"

namespace kgo::wiki {
namespace {

const std::filesystem::path k_fixture = KGO_FIXTURE_WIKI;

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    std::string l = text.substr(start, nl - start);
    if (!l.empty() && l.back() == '\r') l.pop_back();
    out.push_back(l);
    start = nl + 1;
  }
  return out;
}

void expect_sound(const std::string& rel, const std::string& text, const std::string& what) {
  FileIndex f;
  ASSERT_NO_THROW(f = parse_file(rel, text)) << what;
  auto lines = lines_of(text);
  // Lines inside code fences state nothing (computed here independently of the parser).
  std::vector<bool> fenced(lines.size() + 1, false);
  bool fence = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string t = lines[i];
    t.erase(0, t.find_first_not_of(" \t"));
    bool toggles = t.rfind("```", 0) == 0 || t.rfind("~~~", 0) == 0;
    fenced[i + 1] = fence || toggles;
    if (toggles) fence = !fence;
  }
  bool markdown = rel.size() > 3 && rel.substr(rel.size() - 3) == ".md";
  for (const auto& fact : f.facts) {
    bool declared = false;
    for (const auto& p : f.products) declared = declared || p.name == fact.product;
    EXPECT_TRUE(declared) << what << ": product " << fact.product << " of a fact is not declared";
    if (markdown && fact.line >= 1 && fact.line <= static_cast<int>(lines.size())) {
      EXPECT_FALSE(fenced[fact.line]) << what << ": fact inside a code fence at line " << fact.line;
    }
    ASSERT_GE(fact.line, 1) << what;
    ASSERT_LE(fact.line, static_cast<int>(lines.size())) << what;
    const std::string& line = lines[fact.line - 1];
    EXPECT_NE(line.find(fact.value_text), std::string::npos) << what << "\nline: " << line << "\nvalue: " << fact.value_text;
    std::string vt = fact.value_text;
    if (vt.size() >= 2 && vt.front() == '"' && vt.back() == '"') vt = vt.substr(1, vt.size() - 2);
    auto pv = parse_value(vt);
    if (rel.size() > 5 && rel.substr(rel.size() - 5) == ".json" && !pv) {
      // A bare JSON number such as 1e3 is written in a form markdown values never use.
      EXPECT_DOUBLE_EQ(std::stod(vt), fact.value) << what;
    } else {
      ASSERT_TRUE(pv) << what << " value_text " << fact.value_text;
      EXPECT_DOUBLE_EQ(pv->value, fact.value) << what << " line: " << line;
    }
    EXPECT_TRUE(is_canonical_metric(fact.metric)) << fact.metric;
    auto q = normalize(fact.value, fact.unit);
    ASSERT_TRUE(q) << fact.unit;
    EXPECT_EQ(q->dimension, metric_dimension(fact.metric)) << what;
    EXPECT_FALSE(fact.product.empty()) << what;
    EXPECT_EQ(fact.file, rel);
  }
  for (const auto& i : f.issues) {
    EXPECT_GE(i.line, 1);
    EXPECT_LE(i.line, static_cast<int>(lines.size()));
  }
}

const std::vector<std::string>& tokens() {
  static const std::vector<std::string> t = {
      "|", "| ", " | ", "---", "|---|---|", "\n", "\n\n", "#", "## ", "### ", "```\n", "~", "\xE2\x89\x88",
      "\xC3\x97", " x ", ",", ".", "1,978.9", "989.4", "~148", "3.35", "65,536", "0", "-", "\xE2\x80\x94",
      "\xE2\x80\x93", " TB/s", " GB/s", " TFLOPS", " TOPS", " KB", " MB", " GB", " MiB", " MHz", " W", " us",
      "Up to ", "(sm_90, Hopper)", "(gfx942, CDNA3)", "NVIDIA H100 SXM ", "H20", "H200", "MI300X",
      "FP16 / BF16 (Tensor Core)", "With Sparsity", "Peak TFLOPS", "Value", "Metric", "HBM bandwidth",
      "Registers per SM", "32-bit", "UNKNOWN", ": ", "**", "`", "---\nproduct: H200\nkind: measured\n---\n",
      "- hbm_bandwidth: ", "(copy)", "\r", "\t", "\xFF", "\xC3", "[", "]", "(", ")", "*", "=", "/", "> "};
  return t;
}

std::string mutate(std::string s, std::mt19937& rng, int edits) {
  auto pick = [&](size_t n) { return n == 0 ? size_t{0} : std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  for (int e = 0; e < edits; ++e) {
    size_t pos = pick(s.size() + 1);
    switch (pick(5)) {
      case 0: s.insert(pos, tokens()[pick(tokens().size())]); break;
      case 1: if (!s.empty()) s.erase(pos == s.size() ? pos - 1 : pos, 1 + pick(8)); break;
      case 2: if (pos < s.size()) s[pos] = static_cast<char>(pick(256)); break;
      case 3: {  // duplicate a line
        size_t b = s.rfind('\n', pos == 0 ? 0 : pos - 1);
        size_t end = s.find('\n', pos);
        b = b == std::string::npos ? 0 : b + 1;
        if (end == std::string::npos) end = s.size();
        s.insert(b, s.substr(b, end - b) + "\n");
        break;
      }
      default: if (pos < s.size()) s.insert(pos, std::string(1, s[pick(s.size())])); break;
    }
  }
  return s;
}

TEST(ParseFuzz, MutatedFixtureDocuments) {
  std::mt19937 rng(20261120);
  for (const char* rel : {"docs/hardware-specs/hardware_specs_hopper.md", "docs/hardware-specs/hardware_specs_mi300x.md"}) {
    std::string base = read(k_fixture / rel);
    ASSERT_FALSE(base.empty());
    expect_sound(rel, base, "unmutated");
    for (int i = 0; i < 150; ++i) {
      std::string m = mutate(base, rng, 1 + i % 40);
      expect_sound(rel, m, std::string(rel) + " mutation " + std::to_string(i));
      if (HasFatalFailure()) return;
    }
  }
}

TEST(ParseFuzz, RandomTokenSoup) {
  std::mt19937 rng(7);
  for (int i = 0; i < 400; ++i) {
    std::string s;
    int n = std::uniform_int_distribution<int>(1, 120)(rng);
    for (int k = 0; k < n; ++k) s += tokens()[std::uniform_int_distribution<size_t>(0, tokens().size() - 1)(rng)];
    expect_sound("README.md", s, "soup " + std::to_string(i) + ": " + s);
    if (HasFatalFailure()) return;
  }
}

TEST(ParseFuzz, RandomBytes) {
  std::mt19937 rng(42);
  for (int i = 0; i < 300; ++i) {
    std::string s(std::uniform_int_distribution<size_t>(0, 400)(rng), '\0');
    for (auto& c : s) c = static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng));
    expect_sound("r.md", s, "bytes " + std::to_string(i));
    expect_sound("r.json", s, "bytes " + std::to_string(i));
    if (HasFatalFailure()) return;
  }
}

TEST(ParseFuzz, MutatedJsonRecords) {
  const std::string base = R"J({"records": [
 {"product": "H100 SXM", "arch": "Hopper", "facts": [
   {"metric": "hbm_bandwidth", "value": 3.35, "unit": "TB/s"},
   {"metric": "bf16_tensor", "value": "989.4", "unit": "TFLOPS"},
   {"label": "FP16 / BF16 (Tensor Core)", "sparse": true, "value": "1,978.9", "unit": "TFLOPS"},
   {"metric": "registers_per_sm", "value": "65,536 × 32-bit"}]},
 {"product": "H20", "kind": "measured", "facts": [{"metric": "hbm_bandwidth", "value": "~3.9", "unit": "TB/s"}]}
]})J";
  expect_sound("r.json", base, "unmutated");
  std::mt19937 rng(99);
  for (int i = 0; i < 300; ++i) {
    expect_sound("r.json", mutate(base, rng, 1 + i % 6), "json mutation " + std::to_string(i));
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace kgo::wiki
