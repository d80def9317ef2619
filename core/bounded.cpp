#include "core/bounded.hpp"

namespace kgo::core {

void LeftOut::add(const std::string& name, std::size_t count) {
  if (count > 0) m_counts[name] += count;
}

std::size_t LeftOut::count(const std::string& name) const {
  auto it = m_counts.find(name);
  return it == m_counts.end() ? 0 : it->second;
}

std::string LeftOut::note(const std::string& how) const {
  if (m_counts.empty()) return "";
  std::string out;
  size_t i = 0;
  for (const auto& [name, n] : m_counts) {
    out += (i == 0 ? "" : i + 1 == m_counts.size() ? " and " : ", ") + std::to_string(n) + " " + name;
    ++i;
  }
  return out + " left out; " + how;
}

void LeftOut::annotate(nlohmann::json& j, const std::string& how) const {
  if (m_counts.empty()) return;
  j["left_out"] = m_counts;
  j["detail"] = note(how);
}

}  // namespace kgo::core
