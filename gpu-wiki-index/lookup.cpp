#include "gpu-wiki-index/lookup.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "core/error.hpp"
#include "gpu-wiki-index/metrics.hpp"
#include "gpu-wiki-index/units.hpp"

namespace kgo::wiki {

std::string citation(const Fact& fact) {
  return "<gpu-wiki>/" + fact.file + ":L" + std::to_string(fact.line);
}

std::string format_value(const Fact& fact) {
  std::string text = fact.value_text;
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = text.substr(1, text.size() - 2);
  auto pv = parse_value(text);
  std::string number;
  if (pv && pv->value == fact.value) {
    for (char c : pv->number_text) {
      if (c != ',') number += c;
    }
  } else {
    number = fmt::format("{}", fact.value);
  }
  return (fact.approximate ? "~" : "") + number + (fact.unit.empty() ? "" : " " + fact.unit);
}

std::string cited_line(const Fact& fact) {
  return fact.product + " " + metric_label(fact.metric) + ": " + format_value(fact) + " <- " + citation(fact);
}

std::string canonical_metric_or_throw(const std::string& metric) {
  if (is_canonical_metric(metric)) return metric;
  if (auto m = metric_from_text(metric)) return *m;
  std::string names;
  for (const auto& n : canonical_metrics()) names += (names.empty() ? "" : ", ") + n;
  throw Error("unknown metric '" + metric + "'; use one of the canonical metrics: " + names,
              ExitCode::unknown_metric);
}

LookupResult lookup(const WikiIndex& index, const std::string& platform, const std::string& metric,
                    bool measured) {
  LookupResult r;
  r.product = index.resolve_product(platform);
  r.metric = canonical_metric_or_throw(metric);
  std::vector<Fact> facts = index.find(r.product, r.metric, measured);
  if (facts.empty()) {
    throw Error(std::string("the gpu-wiki at ") + index.root().string() + " states no " +
                    (measured ? "measured " : "") + r.metric + " (" + metric_label(r.metric) + ") for " +
                    r.product + "; kgo never borrows another product's figure: add it to the wiki" +
                    (measured ? " (kgo ceiling --record writes measured maxima)"
                              : ", or record `kgo spec unknown " + r.metric + "`"),
                ExitCode::missing_spec);
  }
  if (measured) {
    // Record files are named <platform>-<YYYY-MM-DD>.md: the greatest name is the latest.
    auto latest = std::max_element(facts.begin(), facts.end(),
                                   [](const Fact& a, const Fact& b) { return a.file < b.file; });
    r.fact = *latest;
    return r;
  }
  r.fact = facts.front();
  auto base = normalize(r.fact.value, r.fact.unit);
  for (size_t i = 1; i < facts.size(); ++i) {
    auto q = normalize(facts[i].value, facts[i].unit);
    if (base && q && std::fabs(base->value - q->value) > 1e-9 * std::fabs(base->value)) {
      throw Error("the gpu-wiki disagrees with itself on " + r.product + " " + r.metric + ": " +
                      format_value(r.fact) + " at " + citation(r.fact) + " but " + format_value(facts[i]) +
                      " at " + citation(facts[i]) + "; fix the wiki (kgo wiki check lists conflicts)",
                  ExitCode::wiki_error);
    }
    r.also_stated.push_back(facts[i]);
  }
  return r;
}

nlohmann::json to_json(const Fact& f) {
  return {{"product", f.product},       {"metric", f.metric},
          {"label", f.label},           {"value", f.value},
          {"unit", f.unit},             {"value_text", f.value_text},
          {"approximate", f.approximate}, {"measured", f.measured}, {"kind", f.kind},
          {"sparse", is_sparse_metric(f.metric)}, {"core", f.core},
          {"file", f.file},             {"line", f.line},
          {"citation", citation(f)}};
}

nlohmann::json to_json(const WikiIssue& i) {
  return {{"kind", i.kind}, {"file", i.file}, {"line", i.line}, {"message", i.message}};
}

LoadedWiki load_wiki(const std::optional<std::filesystem::path>& dir, const std::string& platform) {
  WikiLocation loc = locate_wiki(dir);
  WikiIndex index = platform.empty() ? WikiIndex::load(loc) : WikiIndex::load_product(loc, platform);
  std::string fp = index.fingerprint();
  return LoadedWiki{loc, std::move(index), identify_wiki(loc, fp)};
}

std::vector<ProductSummary> summarize_products(const WikiIndex& index) {
  std::map<std::string, std::pair<int, int>> counts;  // product -> datasheet, measured facts
  for (const auto& f : index.facts()) (f.measured ? counts[f.product].second : counts[f.product].first)++;
  std::vector<ProductSummary> out;
  for (const auto& p : index.products()) {
    ProductSummary s{p, index.arch(p), {}, counts[p].first, counts[p].second, index.definitions(p)};
    for (const auto& [alias, target] : index.aliases()) {
      if (target == p) s.aliases.push_back(alias);
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::map<std::string, size_t> documents_per_kind(const WikiIndex& index) {
  std::map<std::string, std::set<std::string>> kinds;  // fact kind -> files stating such facts
  const Fact* prev = nullptr;  // facts come file by file: insert each kind and file once
  for (const auto& f : index.facts()) {
    if (!prev || prev->kind != f.kind || prev->file != f.file) kinds[f.kind].insert(f.file);
    prev = &f;
  }
  std::map<std::string, size_t> out;
  for (const auto& [kind, files] : kinds) out[kind] = files.size();
  return out;
}

FactFilter checked_filter(FactFilter f) {
  if (!f.metric.empty()) f.metric = canonical_metric_or_throw(f.metric);
  if (!f.kind.empty() && f.kind != "datasheet" && f.kind != "measured" && f.kind != "notes") {
    throw Error("unknown fact kind '" + f.kind + "'; choose datasheet, measured or notes", ExitCode::usage);
  }
  return f;
}

std::vector<const Fact*> find_facts(const WikiIndex& index, const FactFilter& f) {
  std::string product = f.platform.empty() ? "" : index.resolve_product(f.platform);
  std::vector<const Fact*> out;
  for (const auto& fact : index.facts()) {
    if ((product.empty() || fact.product == product) && (f.metric.empty() || fact.metric == f.metric) &&
        (f.kind.empty() || fact.kind == f.kind)) {
      out.push_back(&fact);
    }
  }
  return out;
}

}  // namespace kgo::wiki
