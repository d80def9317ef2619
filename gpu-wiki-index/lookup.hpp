#pragma once
// The work behind `kgo wiki products | lookup | check | index`: one cited fact per question,
// never a neighbour's figure, plus JSON renderings of facts and issues.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpu-wiki-index/index.hpp"

namespace kgo::wiki {

// `<gpu-wiki>/docs/hardware-specs/x.md:L37` for a fact.
std::string citation(const Fact& fact);

// The value as the wiki writes it, without thousands separators, with its unit: "3.35 TB/s",
// "~148 TFLOPS", "65536".
std::string format_value(const Fact& fact);

// "H100 SXM HBM bandwidth: 3.35 TB/s <- <gpu-wiki>/docs/...:L33".
std::string cited_line(const Fact& fact);

// A canonical metric from a canonical name or free text ("HBM bandwidth"); throws
// Error(unknown_metric) listing the canonical names.
std::string canonical_metric_or_throw(const std::string& metric);

struct LookupResult {
  std::string product;  // canonical
  std::string metric;   // canonical
  Fact fact;            // the one cited fact
  std::vector<Fact> also_stated;  // other lines stating the same value
};

// Resolves the product (unknown_platform), the metric (unknown_metric) and returns the fact.
// Throws Error(missing_spec) when the wiki states no such figure for that product, and
// Error(wiki_error) when its datasheet lines disagree. Measured lookups take the latest record file.
LookupResult lookup(const WikiIndex& index, const std::string& platform, const std::string& metric,
                    bool measured);

nlohmann::json to_json(const Fact& fact);
nlohmann::json to_json(const WikiIssue& issue);

}  // namespace kgo::wiki
