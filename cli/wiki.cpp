// `kgo wiki products | lookup | check | index [--wiki DIR] [--json]`: read the gpu-wiki.
#include <memory>

#include "cli/commands.hpp"
#include "core/bounded.hpp"
#include "core/error.hpp"
#include "gpu-wiki-index/lookup.hpp"
#include "gpu-wiki-index/metrics.hpp"

namespace kgo::cli {

namespace {

struct LookupOptions {
  std::string platform;
  std::string metric;
  bool measured = false;
};

struct IndexOptions {
  std::string platform, metric, kind;
  std::size_t limit = core::k_agent_list_limit;
  bool detail = false;
};

// Every wiki command names the wiki it read: folder, how it was chosen, git commit, fingerprint.
nlohmann::json wiki_json(const wiki::WikiIdentity& id) { return wiki::to_json(id); }

std::string wiki_line(const wiki::WikiIdentity& id) { return "gpu-wiki: " + wiki::describe(id) + "\n"; }

void run_products(Context& ctx) {
  wiki::LoadedWiki w = wiki::load_wiki(ctx.wiki);
  nlohmann::json list = nlohmann::json::array();
  std::string text = wiki_line(w.id) + "Products:\n";
  for (const wiki::ProductSummary& p : wiki::summarize_products(w.index)) {
    nlohmann::json defined = nlohmann::json::array();
    std::string defined_text;
    for (const auto& d : p.defined_at) {
      defined.push_back({{"file", d.file}, {"line", d.line}});
      std::string site = d.file + (d.line > 0 ? ":L" + std::to_string(d.line) : "");
      defined_text += (defined_text.empty() ? "" : ", ") + site;
    }
    std::string alias_text;
    for (const auto& a : p.aliases) alias_text += (alias_text.empty() ? "" : ", ") + a;
    list.push_back({{"name", p.name}, {"arch", p.arch}, {"aliases", p.aliases}, {"facts", p.facts},
                    {"measured_facts", p.measured_facts}, {"defined_at", defined}});
    text += "  " + p.name + (p.arch.empty() ? "" : " (" + p.arch + ")") + ": " + std::to_string(p.facts) +
            " facts" + (p.measured_facts ? ", " + std::to_string(p.measured_facts) + " measured" : "") +
            (alias_text.empty() ? "" : "; aliases " + alias_text) +
            (defined_text.empty() ? "" : "; defined at " + defined_text) + "\n";
  }
  emit(ctx, {{"wiki", wiki_json(w.id)}, {"products", list}}, text);
}

void run_lookup(const LookupOptions& o, Context& ctx) {
  wiki::canonical_metric_or_throw(o.metric);  // a bad metric fails before any wiki work
  wiki::LoadedWiki w = wiki::load_wiki(ctx.wiki, o.platform);
  wiki::LookupResult r = wiki::lookup(w.index, o.platform, o.metric, o.measured);
  nlohmann::json also = nlohmann::json::array();
  for (const auto& f : r.also_stated) also.push_back(wiki::citation(f));
  nlohmann::json j = {{"wiki", wiki_json(w.id)},
                      {"platform", o.platform},
                      {"product", r.product},
                      {"metric", r.metric},
                      {"metric_label", wiki::metric_label(r.metric)},
                      {"fact", wiki::to_json(r.fact)},
                      {"cited", wiki::cited_line(r.fact)},
                      {"also_stated_at", also}};
  emit(ctx, j, wiki::cited_line(r.fact) + "\n" + wiki_line(w.id));
}

void run_check(Context& ctx) {
  wiki::LoadedWiki w = wiki::load_wiki(ctx.wiki);
  auto issues = w.index.check();
  nlohmann::json list = nlohmann::json::array();
  std::string text;
  for (const auto& i : issues) {
    list.push_back(wiki::to_json(i));
    text += i.file + (i.line > 0 ? ":L" + std::to_string(i.line) : "") + ": " + i.kind + ": " + i.message + "\n";
  }
  nlohmann::json documents = nlohmann::json::object();
  std::string kind_text;
  for (const auto& [kind, files] : wiki::documents_per_kind(w.index)) {
    documents[kind] = files;
    kind_text += (kind_text.empty() ? "" : ", ") + std::to_string(files) + " " + kind;
  }
  if (!kind_text.empty()) text += "documents stating facts: " + kind_text + "\n";
  text += wiki_line(w.id);
  text += "gpu-wiki " + w.location.root.string() + ": " + std::to_string(w.index.file_count()) + " files, " +
          std::to_string(w.index.facts().size()) + " facts, " + std::to_string(w.index.products().size()) +
          " products, " + std::to_string(issues.size()) + " problem" + (issues.size() == 1 ? "" : "s") + "\n";
  emit(ctx,
       {{"wiki", wiki_json(w.id)},
        {"files", w.index.file_count()},
        {"facts", w.index.facts().size()},
        {"products", w.index.products()},
        {"documents", documents},
        {"issues", list},
        {"clean", issues.empty()}},
       text);
  if (!issues.empty()) ctx.exit_code = static_cast<int>(ExitCode::failure);
}

// The facts matching the filters, at most o.limit of them (all on --detail), in wiki order.
void run_index(const IndexOptions& o, Context& ctx) {
  wiki::FactFilter filter = wiki::checked_filter({o.platform, o.metric, o.kind});
  wiki::LoadedWiki w = wiki::load_wiki(ctx.wiki, o.platform);
  std::vector<const wiki::Fact*> facts = wiki::find_facts(w.index, filter);
  size_t matched = facts.size();
  core::LeftOut left;
  left.cut("facts", facts, o.detail ? 0 : o.limit);
  nlohmann::json list = nlohmann::json::array();
  std::string text;
  for (const wiki::Fact* f : facts) {
    list.push_back(wiki::to_json(*f));
    text += f->product + "\t" + f->metric + "\t" + wiki::format_value(*f) + (f->measured ? "\tmeasured" : "") +
            "\t" + wiki::citation(*f) + "\t" + f->label + "\n";
  }
  nlohmann::json j = {{"wiki", wiki_json(w.id)}, {"matched", matched}, {"facts", list}};
  const char* how = "narrow with --platform, --metric, --kind, or --limit 0 for every match";
  left.annotate(j, how);
  emit(ctx, j, text + wiki_line(w.id) + (left.empty() ? "" : left.note(how) + "\n"));
}

}  // namespace

void register_wiki(CLI::App& app, Context& ctx) {
  CLI::App* wiki = app.add_subcommand("wiki", "Read the gpu-wiki: products, cited lookups, checks, all facts");
  wiki->require_subcommand(1);
  wiki->fallthrough();
  const std::string wiki_help = "gpu-wiki folder (default: $KGO_GPU_WIKI, /tmp/gpu-wiki, embedded)";
  wiki->add_option("--wiki", ctx.wiki, wiki_help);

  CLI::App* products = wiki->add_subcommand("products", "List the products the wiki describes, with arch and aliases");
  products->add_option("--wiki", ctx.wiki, wiki_help);
  products->callback([&ctx] { run_products(ctx); });

  auto o = std::make_shared<LookupOptions>();
  CLI::App* lookup = wiki->add_subcommand("lookup", "Print one cited spec: <product> <metric>: <value> <- <gpu-wiki>/path:L<n>");
  lookup->add_option("--platform", o->platform, "Product or alias as the wiki names it (H100, MI300X, ...)")->required();
  lookup->add_option("--metric", o->metric, "Canonical metric (hbm_bandwidth, bf16_tensor, sm_count, ...)")->required();
  lookup->add_flag("--measured", o->measured, "Use measured maxima (kgo ceiling --record) instead of the datasheet");
  lookup->add_option("--wiki", ctx.wiki, wiki_help);
  lookup->callback([o, &ctx] { run_lookup(*o, ctx); });

  CLI::App* check = wiki->add_subcommand("check", "Report spec-looking lines kgo cannot read and conflicting values (exit 1 when any)");
  check->add_option("--wiki", ctx.wiki, wiki_help);
  check->callback([&ctx] { run_check(ctx); });

  auto io = std::make_shared<IndexOptions>();
  CLI::App* index = wiki->add_subcommand("index", "Print the facts the wiki states, with their citations (filtered, bounded)");
  index->add_option("--platform", io->platform, "Only this product (or alias)");
  index->add_option("--metric", io->metric, "Only this metric (canonical name or free text)");
  index->add_option("--kind", io->kind, "Only datasheet, measured or notes facts");
  index->add_option("--limit", io->limit, "At most N facts (0: all)")->capture_default_str();
  index->add_flag("--detail", io->detail, "Every matching fact (same as --limit 0)");
  index->add_option("--wiki", ctx.wiki, wiki_help);
  index->callback([io, &ctx] { run_index(*io, ctx); });
}

}  // namespace kgo::cli
