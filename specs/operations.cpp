#include "specs/operations.hpp"

#include <algorithm>
#include <map>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/markdown.hpp"
#include "core/txn_ops.hpp"
#include "core/workspace.hpp"
#include "gpu-wiki-index/metrics.hpp"
#include "specs/text.hpp"

namespace kgo::specs {

namespace fs = std::filesystem;

namespace {

size_t metric_rank(const std::string& metric) {
  const auto& all = wiki::canonical_metrics();
  return static_cast<size_t>(std::find(all.begin(), all.end(), metric) - all.begin());
}

void sort_entries(Registry& reg) {
  std::stable_sort(reg.specs.begin(), reg.specs.end(), [](const SpecEntry& a, const SpecEntry& b) {
    return std::make_pair(metric_rank(a.metric), a.measured) < std::make_pair(metric_rank(b.metric), b.measured);
  });
}

// Puts `e` in the slot of its metric and kind (datasheet/unknown share one slot, measured another).
bool upsert(Registry& reg, const SpecEntry& e) {
  for (auto& old : reg.specs) {
    if (old.metric == e.metric && old.measured == e.measured) {
      old = e;
      sort_entries(reg);
      return true;
    }
  }
  reg.specs.push_back(e);
  sort_entries(reg);
  return false;
}

// Like upsert, but an entry already citing the same line keeps its label and date (spec auto
// must not overwrite what the user registered by hand for the same fact).
void keep_or_upsert(Registry& reg, SpecEntry& e) {
  for (const auto& old : reg.specs) {
    if (old.metric == e.metric && old.measured == e.measured && !old.unknown && old.citation == e.citation &&
        old.line_text == e.line_text) {
      e = old;
      return;
    }
  }
  upsert(reg, e);
}

struct Session {
  fs::path ws;
  core::WorkspaceConfig cfg;
  Registry reg;
  WikiView view;
  std::string product;
  wiki::WikiLocation location;
};

// Loads everything a mutation needs; the caller holds the lock.
Session open_session(const fs::path& ws, const std::optional<fs::path>& wiki_dir) {
  core::WorkspaceConfig cfg = core::load_config(ws);
  Registry reg = load_registry(ws);
  wiki::WikiLocation location = workspace_wiki(ws, wiki_dir);
  WikiView view = open_wiki(location);
  bool has_values = std::any_of(reg.specs.begin(), reg.specs.end(), [](const SpecEntry& e) { return !e.unknown; });
  std::error_code ec;
  if (has_values && !reg.wiki_path.empty() && fs::canonical(reg.wiki_path, ec) != view.root()) {
    throw Error("specs.json's entries cite the gpu-wiki at " + reg.wiki_path + ", but this command reads " +
                    view.root().string() + "; pass --wiki " + reg.wiki_path +
                    ", or remove those entries first (kgo spec remove <metric>)",
                ExitCode::wiki_error);
  }
  std::string product = view.index().resolve_product(cfg.platform);
  return Session{ws, std::move(cfg), std::move(reg), std::move(view), std::move(product), std::move(location)};
}

// specs.json and README.md as save_registry writes them, validated, for one transaction.
std::vector<core::TxnFile> registry_files(const fs::path& ws, const Registry& reg) {
  nlohmann::json j = reg;
  validate_registry_json(j);
  std::string readme = core::try_read_file(ws / "README.md").value_or("");
  return {{"specs.json", j.dump(2) + "\n"},
          {"README.md", core::replace_section(readme, "Hardware Spec", render_hardware_spec(reg))}};
}

void save_and_commit(Session& s, const std::string& message) {
  s.reg.platform = s.product;
  s.reg.wiki_path = s.view.root().string();
  s.reg.wiki_fingerprint = wiki::wiki_fingerprint(s.view.root());
  core::commit_files(s.ws, message, message, registry_files(s.ws, s.reg));
}

// The number as the wiki writes it in the fact's cell ("1,978.9", "~148"), else the value.
std::string fact_number_text(const wiki::Fact& f) {
  for (const auto& t : numbers_in(f.value_text)) {
    if (same_value(t.value, f.value)) return t.text;
  }
  return (f.approximate ? "~" : "") + format_number(f.value);
}

// "3.35 TB/s at <file>:L12 (datasheet)".
std::string fact_site(const wiki::Fact& f) {
  return fact_number_text(f) + (f.unit.empty() ? "" : " " + f.unit) + " at " + f.file + ":L" +
         std::to_string(f.line) + " (" + f.kind + ")";
}

// Facts of any kind (notes included) for the product and metric, measured or not as `measured`,
// whose value differs from `q`.
std::vector<wiki::Fact> disagreeing(const wiki::WikiIndex& index, const std::string& product,
                                    const std::string& metric, bool measured, const wiki::Quantity& q) {
  std::vector<wiki::Fact> out;
  for (const auto& f : index.facts()) {
    if (f.product != product || f.metric != metric || f.measured != measured) continue;
    auto other = wiki::normalize(f.value, f.unit);
    if (other && (other->dimension != q.dimension || !same_value(other->value, q.value))) out.push_back(f);
  }
  return out;
}

std::string auto_label(const std::string& product, const std::string& metric, bool measured) {
  std::string label = product + " " + wiki::metric_label(metric);
  bool tensor = metric.find("_tensor") != std::string::npos;
  if (measured) return label + " (measured)";
  if (tensor && !wiki::is_sparse_metric(metric)) label += " (dense)";
  return label;
}

// Verifies a fact as if the user had cited it, so `spec auto` passes the same gate as `spec add`.
SpecEntry register_fact(Session& s, const wiki::Fact& f) {
  Claim c{f.metric, s.product, f.value, fact_number_text(f), f.unit, Citation{f.file, f.line, ""}};
  Verified v = verify_claim(s.view, c);
  return make_entry(v, c, auto_label(s.product, f.metric, f.measured));
}

// Records `metric: UNKNOWN (gpu-wiki not found)` with its pitfall entry (one per metric).
SpecEntry add_unknown(Session& s, const std::string& metric, const std::string& how) {
  SpecEntry e;
  e.metric = metric;
  e.label = metric + ": UNKNOWN (gpu-wiki not found)";
  e.product = s.product;
  e.unknown = true;
  e.added_at = core::utc_now_iso();
  upsert(s.reg, e);
  Pitfall p;
  p.metric = metric;
  p.error_message = e.label;
  p.root_cause = "the gpu-wiki at " + s.view.root().string() + " states no " + metric + " for " + s.product;
  p.fix_applied = "recorded as UNKNOWN by " + how + "; no value is used";
  p.lesson = "ask the user whether a placeholder is acceptable; never fill the gap from memory or a similar product";
  p.at = e.added_at;
  auto& pits = s.reg.pitfalls;
  pits.erase(std::remove_if(pits.begin(), pits.end(), [&](const Pitfall& x) { return x.metric == metric; }),
             pits.end());
  pits.push_back(p);
  return e;
}

}  // namespace

AddResult add_spec(const fs::path& workspace, const std::optional<fs::path>& wiki_dir, const std::string& statement) {
  SpecStatement st = parse_statement(statement);
  core::LockedWorkspace guard(workspace);
  Session s = open_session(workspace, wiki_dir);
  std::string metric = metric_for_text(st.metric_text, s.cfg.dtype);
  for (const auto& p : products_in_text(st.metric_text, s.view.index())) {
    if (p != s.product) {
      throw Error("the spec names " + p + ", but this workspace's platform is " + s.product +
                      "; kgo never takes another product's numbers: cite a line about " + s.product,
                  ExitCode::citation_rejected);
    }
  }
  Claim c{metric, s.product, st.value, st.value_text, st.unit, st.citation};
  Verified v = verify_claim(s.view, c);
  AddResult r;
  r.entry = make_entry(v, c, st.metric_text);
  r.replaced = upsert(s.reg, r.entry);
  for (const auto& f : disagreeing(s.view.index(), s.product, metric, v.fact.measured, v.quantity)) {
    r.conflicts.push_back(metric + ": the wiki also states " + fact_site(f) + ", but this entry cites " +
                          fact_site(v.fact) + "; check which is right and fix the wiki");
  }
  save_and_commit(s, "spec: add " + metric + " (" + st.value_text + (st.unit.empty() ? "" : " " + st.unit) +
                         " <- " + r.entry.citation + ")");
  r.wiki = wiki::identify_wiki(s.location, s.view.index().fingerprint());
  return r;
}

AutoResult auto_specs(const fs::path& workspace, const std::optional<fs::path>& wiki_dir,
                      const std::vector<std::string>& extra_dtypes) {
  core::LockedWorkspace guard(workspace);
  Session s = open_session(workspace, wiki_dir);
  AutoResult r;
  r.wiki = wiki::identify_wiki(s.location, s.view.index().fingerprint());
  std::vector<std::string> needed = {"hbm_bandwidth"};
  std::vector<std::string> dtypes{s.cfg.dtype};
  dtypes.insert(dtypes.end(), extra_dtypes.begin(), extra_dtypes.end());
  for (const auto& dtype : dtypes) {
    for (const auto& m : compute_metrics_for_dtype(dtype)) {
      if (std::find(needed.begin(), needed.end(), m) == needed.end()) needed.push_back(m);
    }
  }
  needed.push_back("sm_count");
  needed.push_back("l2_cache");
  for (const auto& metric : needed) {
    auto facts = s.view.index().find(s.product, metric, false);
    if (facts.empty()) {
      if (!s.reg.get(metric, false)) r.unknown.push_back(metric);
      continue;
    }
    std::vector<std::string> values;
    for (const auto& f : facts) {
      auto q = wiki::normalize(f.value, f.unit);
      std::string key = q ? format_number(q->value) + q->dimension : format_number(f.value) + f.unit;
      if (std::find(values.begin(), values.end(), key) == values.end()) values.push_back(key);
    }
    if (values.size() > 1) {
      std::string sites;
      for (const auto& f : facts) sites += (sites.empty() ? "" : ", ") + fact_site(f);
      r.conflicts.push_back(metric + ": the wiki's datasheets state different values (" + sites +
                            "); pick one with kgo spec add");
      continue;
    }
    SpecEntry e = register_fact(s, facts.front());
    keep_or_upsert(s.reg, e);
    r.registered.push_back(e);
    std::string choice = metric + ": chose " + fact_site(facts.front());
    auto q = wiki::normalize(facts.front().value, facts.front().unit);
    std::string passed;
    for (bool measured : {false, true}) {
      if (!q) break;
      for (const auto& f : disagreeing(s.view.index(), s.product, metric, measured, *q)) {
        passed += (passed.empty() ? "" : ", ") + fact_site(f);
      }
    }
    r.choices.push_back(choice + (passed.empty() ? "" : " over " + passed));
  }
  // Measured maxima: the newest measured document (by file name) per metric.
  std::map<std::string, wiki::Fact> measured;
  for (const auto& f : s.view.index().facts()) {
    if (!f.measured || f.product != s.product) continue;
    auto it = measured.find(f.metric);
    if (it == measured.end() || f.file > it->second.file) measured[f.metric] = f;
  }
  for (const auto& [metric, f] : measured) {
    SpecEntry e = register_fact(s, f);
    keep_or_upsert(s.reg, e);
    r.registered.push_back(e);
  }
  for (const auto& metric : r.unknown) add_unknown(s, metric, "kgo spec auto");
  save_and_commit(s, "spec: auto (" + std::to_string(r.registered.size()) + " cited, " +
                         std::to_string(r.unknown.size()) + " unknown)");
  return r;
}

UnknownResult record_unknown(const fs::path& workspace, const std::optional<fs::path>& wiki_dir,
                             const std::string& metric_text) {
  core::LockedWorkspace guard(workspace);
  Session s = open_session(workspace, wiki_dir);
  std::string metric = metric_for_text(metric_text, s.cfg.dtype);
  auto facts = s.view.index().find(s.product, metric, false);
  if (facts.empty()) facts = s.view.index().find(s.product, metric, true);
  if (!facts.empty()) {
    const auto& f = facts.front();
    throw Error("the gpu-wiki states " + metric + " for " + s.product + ": " + fact_number_text(f) + " " + f.unit +
                    " <- <gpu-wiki>/" + f.file + ":L" + std::to_string(f.line) +
                    "; register it with kgo spec add (or kgo spec auto) instead of recording UNKNOWN",
                ExitCode::usage);
  }
  UnknownResult r{add_unknown(s, metric, "kgo spec unknown"),
                  wiki::identify_wiki(s.location, s.view.index().fingerprint())};
  save_and_commit(s, "spec: " + metric + " UNKNOWN (gpu-wiki not found)");
  return r;
}

CitedWiki cited_wiki(const fs::path& workspace, const std::optional<fs::path>& wiki_dir, const Registry& reg) {
  CitedWiki w;
  w.recorded = reg.wiki_fingerprint;
  try {
    w.wiki = wiki::identify_wiki(workspace_wiki(workspace, wiki_dir));
  } catch (const Error& e) {
    w.problem = e.what();
    return w;
  }
  if (!w.recorded.empty()) w.changed = w.wiki->fingerprint != w.recorded;
  return w;
}

ListResult list_specs(const fs::path& workspace, const std::optional<fs::path>& wiki_dir) {
  ListResult r{load_registry(workspace), {}};
  r.wiki = cited_wiki(workspace, wiki_dir, r.reg);
  return r;
}

RemoveResult remove_spec(const fs::path& workspace, const std::optional<fs::path>& wiki_dir,
                         const std::string& metric_text) {
  core::LockedWorkspace guard(workspace);
  Registry reg = load_registry(workspace);
  std::string metric = metric_for_text(metric_text);
  CitedWiki cited = cited_wiki(workspace, wiki_dir, reg);
  size_t before = reg.specs.size();
  reg.specs.erase(std::remove_if(reg.specs.begin(), reg.specs.end(),
                                 [&](const SpecEntry& e) { return e.metric == metric; }),
                  reg.specs.end());
  size_t removed = before - reg.specs.size();
  if (removed == 0) {
    throw Error("no spec for " + metric + " is registered; `kgo spec list` shows what is", ExitCode::missing_spec);
  }
  core::commit_files(workspace, "spec remove " + metric, "spec: remove " + metric, registry_files(workspace, reg));
  return RemoveResult{metric, removed, std::move(cited)};
}

}  // namespace kgo::specs
