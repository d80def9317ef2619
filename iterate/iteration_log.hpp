#pragma once
// The README's `## Iteration Log` section, regenerated from memory/v<N>.json: one table row per
// unmasked record, masked ones named below the table.
#include <string>
#include <vector>

#include "iterate/records.hpp"

namespace kgo::iterate {

// The section body (without the heading).
std::string render_iteration_log(const std::vector<Record>& records);

// `readme` with its Iteration Log section replaced (appended when absent); all else byte for byte.
std::string readme_with_log(const std::string& readme, const std::vector<Record>& records);

}  // namespace kgo::iterate
