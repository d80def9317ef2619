#include "gpu-wiki-index/platform.hpp"

#include "gpu-wiki-index/index.hpp"

namespace kgo::wiki {

// The wiki decides: its products (section headings, front matter, tables) and declared
// aliases; the architecture comes from the product heading's parenthesis.
std::vector<std::string> known_platforms(const WikiLocation& wiki) {
  return WikiIndex::load(wiki).products();
}

Platform resolve_platform(const std::string& name, const WikiLocation& wiki) {
  WikiIndex index = WikiIndex::load(wiki);
  std::string canonical = index.resolve_product(name);
  return Platform{canonical, index.arch(canonical)};
}

}  // namespace kgo::wiki
