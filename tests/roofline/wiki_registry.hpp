#pragma once
// Test helper: a spec registry built in memory from the facts the atrex fixture wiki states, read
// through the wiki index (values are never typed into the tests).
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/files.hpp"
#include "gpu-wiki-index/index.hpp"
#include "gpu-wiki-index/units.hpp"
#include "specs/registry.hpp"

namespace kgo::test {

inline const wiki::WikiIndex& fixture_index() {
  static const wiki::WikiIndex index = wiki::WikiIndex::build(KGO_FIXTURE_WIKI);
  return index;
}

inline specs::SpecEntry entry_from_fact(const wiki::Fact& f) {
  specs::SpecEntry e;
  e.metric = f.metric;
  e.label = f.label;
  e.product = f.product;
  e.measured = f.measured;
  e.value = f.value;
  auto parsed = wiki::parse_value(f.value_text);
  e.value_text = parsed ? (parsed->approximate ? "~" : "") + parsed->number_text : f.value_text;
  e.unit = f.unit;
  auto q = wiki::normalize(f.value, f.unit);
  if (!q) throw std::runtime_error("unit not understood: " + f.unit);
  e.si_value = q->value;
  e.dimension = q->dimension;
  e.file = f.file;
  e.line = f.line;
  e.citation = fmt::format("<gpu-wiki>/{}:L{}", f.file, f.line);
  // The cited line and hashes as `kgo spec` records them, so save_registry accepts the entry.
  std::string text = core::read_file(fixture_index().root() / f.file);
  size_t pos = 0;
  for (int i = 1; i < f.line; ++i) pos = text.find('\n', pos) + 1;
  e.line_text = text.substr(pos, text.find('\n', pos) - pos);
  e.line_sha256 = core::sha256_hex(e.line_text);
  e.file_sha256 = core::sha256_hex(text);
  e.added_at = "2026-11-20T00:00:00Z";
  return e;
}

// The wiki's fact for `product` and `metric` (throws when the wiki does not state it).
inline specs::SpecEntry wiki_entry(const std::string& product, const std::string& metric) {
  auto facts = fixture_index().find(product, metric);
  if (facts.empty()) throw std::runtime_error("fixture wiki states no " + metric + " for " + product);
  return entry_from_fact(facts.front());
}

// A registry for `product` holding each of `metrics` as the fixture wiki states it.
inline specs::Registry wiki_registry(const std::string& product, const std::vector<std::string>& metrics) {
  specs::Registry r;
  r.platform = product;
  for (const auto& m : metrics) r.specs.push_back(wiki_entry(product, m));
  return r;
}

}  // namespace kgo::test
