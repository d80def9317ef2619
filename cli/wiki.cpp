// `kgo wiki products | lookup | check | index [--wiki DIR] [--json]`: read the gpu-wiki.
#include <map>
#include <memory>
#include <set>

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

struct Loaded {
  wiki::WikiLocation location;
  wiki::WikiIndex index;
  wiki::WikiIdentity id;  // after loading: the fingerprint reuses the fresh index cache
};

Loaded load(const Context& ctx) {
  wiki::WikiLocation loc = wiki::locate_wiki(ctx.wiki);
  wiki::WikiIndex index = wiki::WikiIndex::load(loc);
  std::string fp = index.fingerprint();
  return Loaded{loc, std::move(index), wiki::identify_wiki(loc, fp)};
}

// Every wiki command names the wiki it read: folder, how it was chosen, git commit, fingerprint.
nlohmann::json wiki_json(const wiki::WikiIdentity& id) { return wiki::to_json(id); }

std::string wiki_line(const wiki::WikiIdentity& id) { return "gpu-wiki: " + wiki::describe(id) + "\n"; }

void run_products(Context& ctx) {
  Loaded w = load(ctx);
  std::map<std::string, std::pair<int, int>> counts;  // product -> datasheet, measured facts
  for (const auto& f : w.index.facts()) (f.measured ? counts[f.product].second : counts[f.product].first)++;
  nlohmann::json list = nlohmann::json::array();
  std::string text = wiki_line(w.id) + "Products:\n";
  for (const auto& p : w.index.products()) {
    nlohmann::json defined = nlohmann::json::array();
    std::string defined_text;
    for (const auto& d : w.index.definitions(p)) {
      defined.push_back({{"file", d.file}, {"line", d.line}});
      std::string site = d.file + (d.line > 0 ? ":L" + std::to_string(d.line) : "");
      defined_text += (defined_text.empty() ? "" : ", ") + site;
    }
    nlohmann::json aliases = nlohmann::json::array();
    std::string alias_text;
    for (const auto& [alias, target] : w.index.aliases()) {
      if (target == p) {
        aliases.push_back(alias);
        alias_text += (alias_text.empty() ? "" : ", ") + alias;
      }
    }
    auto [datasheet, measured] = counts[p];
    std::string arch = w.index.arch(p);
    list.push_back({{"name", p}, {"arch", arch}, {"aliases", aliases}, {"facts", datasheet},
                    {"measured_facts", measured}, {"defined_at", defined}});
    text += "  " + p + (arch.empty() ? "" : " (" + arch + ")") + ": " + std::to_string(datasheet) +
            " facts" + (measured ? ", " + std::to_string(measured) + " measured" : "") +
            (alias_text.empty() ? "" : "; aliases " + alias_text) +
            (defined_text.empty() ? "" : "; defined at " + defined_text) + "\n";
  }
  emit(ctx, {{"wiki", wiki_json(w.id)}, {"products", list}}, text);
}

void run_lookup(const LookupOptions& o, Context& ctx) {
  wiki::WikiLocation loc = wiki::locate_wiki(ctx.wiki);
  wiki::canonical_metric_or_throw(o.metric);  // a bad metric fails before any wiki work
  wiki::WikiIndex index = wiki::WikiIndex::load_product(loc, o.platform);
  std::string fp = index.fingerprint();
  Loaded w{loc, std::move(index), wiki::identify_wiki(loc, fp)};
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
  Loaded w = load(ctx);
  auto issues = w.index.check();
  nlohmann::json list = nlohmann::json::array();
  std::string text;
  for (const auto& i : issues) {
    list.push_back(wiki::to_json(i));
    text += i.file + (i.line > 0 ? ":L" + std::to_string(i.line) : "") + ": " + i.kind + ": " + i.message + "\n";
  }
  std::map<std::string, std::set<std::string>> kinds;  // fact kind -> files stating such facts
  const wiki::Fact* prev = nullptr;  // facts come file by file: insert each kind and file once
  for (const auto& f : w.index.facts()) {
    if (!prev || prev->kind != f.kind || prev->file != f.file) kinds[f.kind].insert(f.file);
    prev = &f;
  }
  nlohmann::json documents = nlohmann::json::object();
  std::string kind_text;
  for (const auto& [kind, files] : kinds) {
    documents[kind] = files.size();
    kind_text += (kind_text.empty() ? "" : ", ") + std::to_string(files.size()) + " " + kind;
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
  std::string metric = o.metric.empty() ? "" : wiki::canonical_metric_or_throw(o.metric);
  if (!o.kind.empty() && o.kind != "datasheet" && o.kind != "measured" && o.kind != "notes") {
    throw Error("unknown fact kind '" + o.kind + "'; choose datasheet, measured or notes", ExitCode::usage);
  }
  wiki::WikiLocation loc = wiki::locate_wiki(ctx.wiki);
  wiki::WikiIndex index = o.platform.empty() ? wiki::WikiIndex::load(loc) : wiki::WikiIndex::load_product(loc, o.platform);
  std::string fp = index.fingerprint();
  Loaded w{loc, std::move(index), wiki::identify_wiki(loc, fp)};
  // load_product may fall back to every product's facts: the product is resolved and kept here.
  std::string product = o.platform.empty() ? "" : w.index.resolve_product(o.platform);
  std::vector<const wiki::Fact*> facts;
  for (const auto& f : w.index.facts()) {
    if ((product.empty() || f.product == product) && (metric.empty() || f.metric == metric) &&
        (o.kind.empty() || f.kind == o.kind)) {
      facts.push_back(&f);
    }
  }
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
