#pragma once
// The work behind `kgo wiki products | lookup | check | index`: one cited fact per question,
// never a neighbour's figure, plus JSON renderings of facts and issues.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpu-wiki-index/index.hpp"
#include "gpu-wiki-index/wiki_location.hpp"

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

// A wiki loaded with the identity every wiki command names (folder, how it was chosen, commit, fingerprint).
struct LoadedWiki {
  WikiLocation location;
  WikiIndex index;
  WikiIdentity id;  // its fingerprint reuses the index cache the load has just checked
};
// Every product's facts, or (a platform given) that product's facts where the wiki allows reading one alone.
LoadedWiki load_wiki(const std::optional<std::filesystem::path>& dir, const std::string& platform = "");

struct ProductSummary {
  std::string name, arch;
  std::vector<std::string> aliases;
  int facts = 0, measured_facts = 0;
  std::vector<ProductSite> defined_at;
};
// The products the wiki describes, in its order, with their aliases, fact counts and defining lines.
std::vector<ProductSummary> summarize_products(const WikiIndex& index);

// Fact kind (datasheet, measured, notes) -> how many files state facts of that kind.
std::map<std::string, size_t> documents_per_kind(const WikiIndex& index);

// Filters of `kgo wiki index`; empty fields match everything.
struct FactFilter {
  std::string platform, metric, kind;
};
// The filter with its metric made canonical; unknown metrics (unknown_metric) and kinds (usage) are errors
// raised before any wiki work.
FactFilter checked_filter(FactFilter f);
// The facts matching a checked filter, in wiki order (the platform resolved to its product here, since an index
// loaded for one product may hold every product's facts).
std::vector<const Fact*> find_facts(const WikiIndex& index, const FactFilter& f);

nlohmann::json to_json(const Fact& fact);
nlohmann::json to_json(const WikiIssue& issue);

}  // namespace kgo::wiki
