#pragma once
// Answers sized for an agent's context: lists cut to at most `limit` items (0: no limit), and a
// record of what was cut, rendered as `left_out` {list: count} plus a `detail` note naming the
// option that shows everything.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kgo::core {

// The default number of items an agent gets from one list.
constexpr std::size_t k_agent_list_limit = 10;

class LeftOut {
 public:
  // Keeps the first (or, with keep_last, the last) `limit` items, all when limit is 0, and counts
  // the rest under `name`.
  template <class T>
  void cut(const std::string& name, std::vector<T>& items, std::size_t limit, bool keep_last = false) {
    if (limit == 0 || items.size() <= limit) return;
    std::size_t drop = items.size() - limit;
    add(name, drop);
    if (keep_last) items.erase(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(drop));
    else items.resize(limit);
  }
  void add(const std::string& name, std::size_t count);
  bool empty() const { return m_counts.empty(); }
  std::size_t count(const std::string& name) const;
  // "30 commits and 3 records left out; <how>"; empty when nothing was left out.
  std::string note(const std::string& how) const;
  // Sets j["left_out"] and j["detail"] (the note) when something was left out.
  void annotate(nlohmann::json& j, const std::string& how) const;

 private:
  std::map<std::string, std::size_t> m_counts;
};

}  // namespace kgo::core
