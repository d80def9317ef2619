#pragma once
// Internal to gpu-wiki-index: a per-thread memo for pure functions of one string. A wiki repeats
// its labels, headers and cells across files ("HBM bandwidth", "| Metric | Value |"), so the
// parsers classify each distinct text once per thread instead of once per line.
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace kgo::wiki {

// Hashes std::string and std::string_view alike, so a look-up copies no key.
struct MemoHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// compute(key) once per thread and distinct key; each call site (lambda type) has its own table,
// dropped when it passes `limit` entries so memory stays bounded on huge wikis.
template <class Value, class Compute>
const Value& memoized(std::string_view key, Compute&& compute, size_t limit = 1 << 16) {
  thread_local std::unordered_map<std::string, Value, MemoHash, std::equal_to<>> table;
  auto it = table.find(key);
  if (it != table.end()) return it->second;
  if (table.size() >= limit) table.clear();
  return table.emplace(std::string(key), compute(key)).first->second;
}

}  // namespace kgo::wiki
