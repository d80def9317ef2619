#pragma once
// Resolves a `--platform` name to the product the wiki describes, with its architecture.
#include <string>
#include <vector>

#include "gpu-wiki-index/wiki_location.hpp"

namespace kgo::wiki {

struct Platform {
  std::string canonical;  // product name as the wiki states it
  std::string arch;       // Hopper, Ampere, Blackwell, Ada, CDNA3, CDNA4
};

// Throws Error(unknown_platform) listing the known platforms, or naming the candidates
// when `name` is ambiguous.
Platform resolve_platform(const std::string& name, const WikiLocation& wiki);

// The platform names `kgo init --platform` accepts for this wiki.
std::vector<std::string> known_platforms(const WikiLocation& wiki);

}  // namespace kgo::wiki
