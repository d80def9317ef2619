// `kgo spec add | auto | unknown | list | remove`: the workspace's cited hardware specs.
#include <algorithm>
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "specs/operations.hpp"

namespace kgo::cli {

namespace {

struct SpecOptions {
  std::vector<std::string> dtypes;  // spec auto --dtype
  std::string statement;
  std::string metric;
};

nlohmann::json entry_json(const specs::SpecEntry& e) { return e; }

std::string entry_line(const specs::SpecEntry& e) {
  if (e.unknown) return e.metric + ": UNKNOWN (gpu-wiki not found)";
  std::string value = e.value_text + (e.unit.empty() ? "" : " " + e.unit);
  return e.label + ": " + value + " <- " + e.citation + (e.measured ? "  [measured]" : "") +
         (e.approximate ? "  [approximate]" : "");
}

nlohmann::json result(const std::string& action, const std::filesystem::path& ws) {
  return {{"action", action}, {"workspace", ws.string()}};
}

void run_add(const SpecOptions& o, Context& ctx) {
  auto ws = workspace_dir(ctx);
  specs::AddResult r = specs::add_spec(ws, ctx.wiki, o.statement);
  nlohmann::json j = result("add", ws);
  j["entry"] = entry_json(r.entry);
  j["replaced"] = r.replaced;
  j["conflicts"] = r.conflicts;
  j["wiki"] = wiki::to_json(r.wiki);
  std::string text = std::string(r.replaced ? "Replaced " : "Registered ") + r.entry.metric + ": " +
                     entry_line(r.entry) + "\n  verified against " + r.entry.citation + ": \"" + r.entry.line_text +
                     "\"\n  gpu-wiki: " + wiki::describe(r.wiki) + "\n";
  for (const auto& c : r.conflicts) text += "  conflict: " + c + "\n";
  emit(ctx, j, text);
}

void run_auto(const SpecOptions& o, Context& ctx) {
  auto ws = workspace_dir(ctx);
  specs::AutoResult r = specs::auto_specs(ws, ctx.wiki, o.dtypes);
  nlohmann::json j = result("auto", ws);
  j["registered"] = nlohmann::json::array();
  std::string text = "Registered " + std::to_string(r.registered.size()) + " cited spec(s):\n";
  for (const auto& e : r.registered) {
    j["registered"].push_back(entry_json(e));
    text += "  " + entry_line(e) + "\n";
  }
  j["unknown"] = r.unknown;
  j["conflicts"] = r.conflicts;
  j["choices"] = r.choices;
  j["wiki"] = wiki::to_json(r.wiki);
  text += "  gpu-wiki: " + wiki::describe(r.wiki) + "\n";
  for (const auto& c : r.choices) text += "  " + c + "\n";
  for (const auto& m : r.unknown) {
    bool measured = std::any_of(r.registered.begin(), r.registered.end(),
                                [&](const specs::SpecEntry& e) { return e.measured && e.metric == m; });
    text += "  " + m + ": UNKNOWN (gpu-wiki not found) -- no datasheet value; recorded with a pitfall; " +
            (measured ? std::string("the measured value registered above serves the roofline\n")
                      : std::string("ask whether a placeholder is acceptable\n"));
  }
  for (const auto& c : r.conflicts) text += "  not registered: " + c + "\n";
  emit(ctx, j, text);
  if (!r.conflicts.empty()) ctx.exit_code = static_cast<int>(ExitCode::wiki_error);
}

void run_unknown(const SpecOptions& o, Context& ctx) {
  auto ws = workspace_dir(ctx);
  specs::UnknownResult r = specs::record_unknown(ws, ctx.wiki, o.metric);
  nlohmann::json j = result("unknown", ws);
  j["entry"] = entry_json(r.entry);
  j["wiki"] = wiki::to_json(r.wiki);
  emit(ctx, j,
       "Recorded " + r.entry.metric + ": UNKNOWN (gpu-wiki not found), with a pitfall entry in specs.json\n" +
           "  gpu-wiki searched: " + wiki::describe(r.wiki) + "\n");
}

// The wiki the specs cite, for commands that do not verify them: "wiki" (null when none can be
// read, with "wiki_problem") and "wiki_changed" (null when specs.json recorded no fingerprint).
std::string cited_wiki(nlohmann::json& j, const specs::CitedWiki& w) {
  j["wiki"] = w.wiki ? wiki::to_json(*w.wiki) : nlohmann::json(nullptr);
  j["wiki_changed"] = w.changed ? nlohmann::json(*w.changed) : nlohmann::json(nullptr);
  if (!w.wiki) {
    j["wiki_problem"] = w.problem;
    return "  gpu-wiki: none readable: " + w.problem + "\n";
  }
  std::string text = "  gpu-wiki: " + wiki::describe(*w.wiki) + "\n";
  if (w.changed.value_or(false)) {
    text += "  its content differs from the wiki these specs were verified against (specs.json recorded " +
            w.recorded.substr(0, 19) + "); kgo audit re-verifies every citation\n";
  }
  return text;
}

void run_list(Context& ctx) {
  auto ws = workspace_dir(ctx);
  specs::ListResult r = specs::list_specs(ws, ctx.wiki);
  const specs::Registry& reg = r.reg;
  nlohmann::json j = result("list", ws);
  j["platform"] = reg.platform;
  j["wiki_path"] = reg.wiki_path;
  j["specs"] = reg.specs;
  j["pitfalls"] = reg.pitfalls;
  std::string text = reg.specs.empty() ? "No specs registered; run kgo spec auto\n"
                                       : "Specs of " + ws.string() + " (" + reg.platform + "):\n";
  for (const auto& e : reg.specs) text += "  " + entry_line(e) + "\n";
  text += cited_wiki(j, r.wiki);
  emit(ctx, j, text);
}

void run_remove(const SpecOptions& o, Context& ctx) {
  auto ws = workspace_dir(ctx);
  specs::RemoveResult r = specs::remove_spec(ws, ctx.wiki, o.metric);
  nlohmann::json j = result("remove", ws);
  j["metric"] = r.metric;
  j["removed"] = r.removed;
  std::string text = "Removed " + std::to_string(r.removed) + " entr" + (r.removed == 1 ? "y" : "ies") + " for " +
                     r.metric + "\n";
  text += cited_wiki(j, r.wiki);
  emit(ctx, j, text);
}

}  // namespace

void register_spec(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<SpecOptions>();
  CLI::App* spec = app.add_subcommand("spec", "Cited hardware specs of a workspace (specs.json, README Hardware Spec)");
  spec->require_subcommand(1);
  auto common = [&ctx](CLI::App* s) {
    add_workspace_option(s, ctx);
    s->add_option("--wiki", ctx.wiki, "gpu-wiki folder (default: the one the workspace recorded)");
  };
  CLI::App* add = spec->add_subcommand("add", "Register \"<metric>: <value> <unit> <- <gpu-wiki>/<path>:L<line>\" after verifying it");
  add->add_option("statement", o->statement, "The cited spec, e.g. \"H100 HBM bandwidth: 3.35 TB/s <- <gpu-wiki>/docs/x.md:L37\"")->required();
  common(add);
  add->callback([o, &ctx] { run_add(*o, ctx); });
  CLI::App* aut = spec->add_subcommand("auto", "Register what the roofline needs for the platform and dtype, plus measured maxima");
  aut->add_option("--dtype", o->dtypes, "Also register what a roofline for this dtype needs (repeatable)");
  common(aut);
  aut->callback([o, &ctx] { run_auto(*o, ctx); });
  CLI::App* unk = spec->add_subcommand("unknown", "Record <metric>: UNKNOWN (gpu-wiki not found) with a pitfall entry");
  unk->add_option("metric", o->metric, "Canonical metric (or text naming one)")->required();
  common(unk);
  unk->callback([o, &ctx] { run_unknown(*o, ctx); });
  CLI::App* list = spec->add_subcommand("list", "List the registered specs with their citations");
  common(list);
  list->callback([&ctx] { run_list(ctx); });
  CLI::App* rm = spec->add_subcommand("remove", "Remove every entry of a metric");
  rm->add_option("metric", o->metric, "Canonical metric (or text naming one)")->required();
  common(rm);
  rm->callback([o, &ctx] { run_remove(*o, ctx); });
}

}  // namespace kgo::cli
