#include "gpu-wiki-index/platform.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include "core/error.hpp"

namespace kgo::wiki {

// Bootstrap table until the wiki index decides (issue 3): names and architecture families only,
// no hardware numbers.
namespace {
const std::map<std::string, std::string>& arch_table() {
  static const std::map<std::string, std::string> t = {
      {"H20", "Hopper"},     {"H100", "Hopper"},   {"H200", "Hopper"},  {"A100", "Ampere"},
      {"B200", "Blackwell"}, {"MI300X", "CDNA3"},  {"MI308X", "CDNA3"}, {"MI325X", "CDNA3"},
      {"MI355X", "CDNA4"}};
  return t;
}
std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}
}  // namespace

std::vector<std::string> known_platforms(const WikiLocation&) {
  std::vector<std::string> out;
  for (const auto& [k, v] : arch_table()) out.push_back(k);
  return out;
}

Platform resolve_platform(const std::string& name, const WikiLocation& wiki) {
  auto it = arch_table().find(upper(name));
  if (it == arch_table().end()) {
    std::string list;
    for (const auto& p : known_platforms(wiki)) list += (list.empty() ? "" : ", ") + p;
    throw Error("unknown platform '" + name + "'; known platforms: " + list,
                ExitCode::unknown_platform);
  }
  return Platform{it->first, it->second};
}

}  // namespace kgo::wiki
