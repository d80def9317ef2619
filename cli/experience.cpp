// `kgo experience add|recommend|search|list|merge|sync|stats`: the experience store shared by every
// workspace of the user (see experience/store.hpp for where it lives).
#include <memory>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/memory.hpp"
#include "experience/advice.hpp"
#include "iterate/learn.hpp"

namespace kgo::cli {

namespace {

using nlohmann::json;

struct ExperienceOptions {
  std::optional<std::filesystem::path> store, out;
  std::string version, text;
  experience::Query q;
  int limit = 5;
  bool from_workspace = false;
};

std::string outcome_line(const experience::Entry& e) {
  return fmt::format("{} {} {}/{}/{} {}/{}: {} {:.2f}x ({}) - {}", e.id, e.recorded_at.substr(0, 10), e.kernel_class,
                     e.arch, e.bottleneck, e.language, e.dtype, e.action_category, e.speedup, e.outcome, e.change);
}

json entries_json(const std::vector<experience::Entry>& v, int limit) {
  json a = json::array();
  for (int i = 0; i < static_cast<int>(v.size()) && i < limit; ++i) a.push_back(experience::to_json(v[i]));
  return a;
}

void add_filters(CLI::App* sub, ExperienceOptions& o) {
  sub->add_option("--kernel-class", o.q.kernel_class, "elementwise, reduction, softmax, normalization, gemm, ...");
  sub->add_option("--arch", o.q.arch, "Exact arch: sm_90, sm_100, gfx942, ...");
  sub->add_option("--bottleneck", o.q.bottleneck, "memory, compute, latency, occupancy, mixed (kgo profile's verdicts)");
  sub->add_option("--language", o.q.language, "triton, cuda, hip, ...");
  sub->add_option("--dtype", o.q.dtype, "fp32, bf16, fp16, ...");
  sub->add_option("--action", o.q.action_category, "An action category (vectorized_load, ...)");
}

void fill_from_workspace(ExperienceOptions& o, Context& ctx) {
  auto k = iterate::workspace_keys(workspace_dir(ctx));
  auto fill = [](std::optional<std::string>& dst, const std::optional<std::string>& src) {
    if (!dst) dst = src;
  };
  fill(o.q.kernel_class, k.kernel_class);
  fill(o.q.arch, k.arch);
  fill(o.q.bottleneck, k.bottleneck);
  fill(o.q.language, k.language);
  fill(o.q.dtype, k.dtype);
}

std::string stats_text(const experience::Stats& s) {
  std::string t = fmt::format("{} record(s), {} ledger line(s)\n", s.records, s.ledger);
  auto block = [&](const char* title, const std::vector<experience::StatsRow>& rows) {
    t += std::string(title) + ":\n";
    for (const auto& r : rows) {
      t += fmt::format("  {:<14} {:>4} records: {} success, {} neutral, {} failure; median speedup {:.2f}x\n", r.key,
                       r.records, r.successes, r.neutrals, r.failures, r.median_speedup);
    }
  };
  block("by kernel class", s.by_kernel_class);
  block("by arch", s.by_arch);
  block("by bottleneck", s.by_bottleneck);
  return t;
}

}  // namespace

void register_experience(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<ExperienceOptions>();
  CLI::App* exp = app.add_subcommand("experience", "What worked and failed before, across every workspace of this user");
  exp->require_subcommand(1);
  auto leaf = [&](const char* name, const char* help) {
    CLI::App* s = exp->add_subcommand(name, help);
    s->add_option("--store", o->store, "Experience store directory (default: $KGO_EXPERIENCE_DIR, else "
                                       "$XDG_DATA_HOME/kgo/experience, else ~/.local/share/kgo/experience)");
    return s;
  };

  CLI::App* add = leaf("add", "Add the outcome of a decided iteration, computed from its stamped measurements");
  add->add_option("version", o->version, "v<N>")->required();
  add_workspace_option(add, ctx);
  add->callback([o, &ctx] {
    auto ws = workspace_dir(ctx);
    auto l = iterate::learn_from_iteration(ws, core::parse_version(o->version), experience::store_dir(o->store));
    if (!l.entry) throw Error("nothing to learn from " + o->version + ": " + l.note, ExitCode::record_error);
    emit(ctx, {{"verb", "add"}, {"entry", experience::to_json(*l.entry)}}, "Added " + outcome_line(*l.entry) + "\n");
  });

  CLI::App* rec = leaf("recommend", "Rank what worked (and warn about what failed) for kernels like this one");
  add_filters(rec, *o);
  rec->add_flag("--from-workspace", o->from_workspace, "Fill the unset filters from the workspace (its op, arch, bottleneck)");
  rec->add_option("--workspace", ctx.workspace, "Workspace directory (with --from-workspace)");
  rec->add_option("--limit", o->limit, "At most this many recommendations and warnings (default 5)");
  rec->callback([o, &ctx] {
    if (o->from_workspace) fill_from_workspace(*o, ctx);
    o->q.validate();
    auto r = experience::recommend(experience::load(experience::store_dir(o->store)), o->q, core::record_epoch_now(), o->limit);
    json a = json::array(), w = json::array();
    std::string text = fmt::format("{} matching record(s)\n", r.considered);
    for (const auto& x : r.advice) {
      a.push_back(experience::to_json(x));
      text += fmt::format("  try  {}  [{}, score {:.2f}]\n", x.text(), x.id, x.score);
    }
    for (const auto& x : r.warnings) {
      w.push_back(experience::to_json(x));
      text += fmt::format("  warn {}  [{}, score {:.2f}]\n", x.text(), x.id, x.score);
    }
    if (r.advice.empty() && r.warnings.empty()) text += "  no experience for this kind of kernel yet\n";
    text += "A plan that follows one writes `- follows: <id>` in its Hypothesis; the outcome goes to the ledger.\n";
    emit(ctx, {{"verb", "recommend"}, {"considered", r.considered}, {"advice", a}, {"warnings", w}}, text);
  });

  CLI::App* se = leaf("search", "Records whose change, evidence or action contain TEXT");
  se->add_option("text", o->text, "Text to look for (case-insensitive)")->required();
  add_filters(se, *o);
  se->add_option("--limit", o->limit, "At most this many records");
  CLI::App* ls = leaf("list", "Records, newest first");
  add_filters(ls, *o);
  ls->add_option("--limit", o->limit, "At most this many records");
  for (CLI::App* s : {se, ls}) {
    bool is_search = s == se;
    s->callback([o, &ctx, is_search] {
      o->q.validate();
      auto found = experience::search(experience::load(experience::store_dir(o->store)).entries, o->q,
                                      is_search ? o->text : "");
      std::string text;
      for (int i = 0; i < static_cast<int>(found.size()) && i < o->limit; ++i) text += outcome_line(found[i]) + "\n";
      if (found.empty()) text = "no records\n";
      emit(ctx, {{"verb", is_search ? "search" : "list"}, {"total", found.size()}, {"entries", entries_json(found, o->limit)}},
           text);
    });
  }
  ls->get_option("--limit")->default_val(50);

  CLI::App* merge = leaf("merge", "Fold duplicate records into one, keeping every measurement and source");
  merge->callback([o, &ctx] {
    auto dir = experience::store_dir(o->store);
    experience::StoreLock lock(dir);
    auto loaded = experience::load(dir);
    auto r = experience::merge_entries(loaded.entries);
    if (r.after != r.before) experience::rewrite_entries(dir, loaded.entries);
    emit(ctx, {{"verb", "merge"}, {"before", r.before}, {"after", r.after}, {"folded", r.folded}},
         fmt::format("{} record(s) -> {} ({} folded)\n", r.before, r.after, r.folded.size()));
  });

  CLI::App* sync = leaf("sync", "Write the markdown view of the store (default <store>/EXPERIENCE.md)");
  sync->add_option("--out", o->out, "Where to write it");
  sync->callback([o, &ctx] {
    auto dir = experience::store_dir(o->store);
    auto loaded = experience::load(dir);
    auto path = o->out.value_or(dir / "EXPERIENCE.md");
    core::write_file_atomic(path, experience::render_markdown(loaded));
    emit(ctx, {{"verb", "sync"}, {"path", path.string()}, {"records", loaded.entries.size()}},
         "Wrote " + path.string() + "\n");
  });

  CLI::App* st = leaf("stats", "Outcomes by kernel class, arch and bottleneck");
  st->callback([o, &ctx] {
    auto s = experience::stats(experience::load(experience::store_dir(o->store)));
    json j = experience::to_json(s);
    j["verb"] = "stats";
    emit(ctx, j, stats_text(s));
  });
}

}  // namespace kgo::cli
