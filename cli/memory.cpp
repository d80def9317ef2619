// `kgo memory create|read|update|append|mask|unmask|list|summary|latest|diff`: iteration records.
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/bounded.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "iterate/lifecycle.hpp"
#include "iterate/memory_view.hpp"

namespace kgo::cli {

namespace {

using nlohmann::json;

struct MemoryOptions {
  std::string version, other, field, value;
  std::vector<std::string> versions, sets;
  bool include_masked = false;
  bool detail = false;
  std::size_t limit = core::k_agent_list_limit;
};

// update and append answer with what changed; the whole record only on --detail.
const char* k_record_how = "--detail adds the whole record; kgo memory read vN --field PATH reads one field";

std::string value_text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(2); }

void run_read(const MemoryOptions& o, Context& ctx) {
  auto ws = workspace_dir(ctx);
  std::vector<int> versions;
  if (!o.version.empty()) {
    versions.push_back(core::parse_version(o.version));
  } else {
    for (int n : core::record_versions(ws)) versions.push_back(n);
  }
  std::vector<std::pair<json, std::string>> rows;  // the JSON row and its text
  for (int n : versions) {
    json rec = core::read_record(ws, n, o.include_masked || o.version.empty());
    if (o.version.empty() && rec.value("masked", false) && !o.include_masked) continue;
    json row = {{"version", core::version_name(n)}, {"masked", rec.value("masked", false)}};
    std::string text;
    if (!o.field.empty()) {
      const json* v = core::find_path(rec, o.field);
      if (!v && !o.version.empty()) {
        throw Error(core::version_name(n) + " has no field '" + o.field + "'", ExitCode::usage);
      }
      row["value"] = v ? *v : json();
      text = (o.version.empty() ? core::version_name(n) + ": " : "") + (v ? value_text(*v) : "(absent)") + "\n";
    } else {
      row["record"] = rec;
      text = rec.dump(2) + "\n";
    }
    rows.emplace_back(std::move(row), std::move(text));
  }
  core::LeftOut left;
  left.cut("older records", rows, o.limit, true);
  json list = json::array();
  std::string text;
  for (auto& [row, t] : rows) {
    list.push_back(std::move(row));
    text += t;
  }
  json j = {{"verb", "read"}, {"field", o.field.empty() ? json() : json(o.field)}, {"records", list}};
  const char* how = "--limit N reads the newest N (0: all), or name one version";
  left.annotate(j, how);
  if (!left.empty()) text += left.note(how) + "\n";
  emit(ctx, j, text);
}

void run_update(const MemoryOptions& o, Context& ctx) {
  auto ws = workspace_dir(ctx);
  int n = core::parse_version(o.version);
  std::vector<core::FieldUpdate> sets;
  json paths = json::array();
  for (const auto& s : o.sets) {
    size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw Error("bad --set '" + s + "': write field.path=value", ExitCode::usage);
    }
    sets.push_back({s.substr(0, eq), s.substr(eq + 1)});
    paths.push_back(s.substr(0, eq));
  }
  json rec = core::update_record(ws, n, sets);
  json j = {{"verb", "update"}, {"version", core::version_name(n)}, {"updated", paths}};
  if (o.detail) j["record"] = rec;
  else j["detail"] = k_record_how;
  emit(ctx, j, "Updated " + core::version_name(n) + ": " + paths.dump() + "\n");
}

void run_append(const MemoryOptions& o, Context& ctx) {
  auto ws = workspace_dir(ctx);
  int n = core::parse_version(o.version);
  json rec = core::append_to_record(ws, n, o.field, o.value);
  size_t length = core::find_path(rec, o.field)->size();
  json j = {{"verb", "append"}, {"version", core::version_name(n)}, {"field", o.field}, {"length", length}};
  if (o.detail) j["record"] = rec;
  else j["detail"] = k_record_how;
  emit(ctx, j, "Appended to " + core::version_name(n) + " " + o.field + " (now " + std::to_string(length) + " entries)\n");
}

void run_mask(const MemoryOptions& o, Context& ctx, bool masked) {
  auto ws = workspace_dir(ctx);
  std::vector<int> versions;
  for (const auto& v : o.versions) versions.push_back(core::parse_version(v));
  auto r = iterate::set_masked(ws, versions, masked);
  std::string verb = masked ? "mask" : "unmask", text;
  if (!r.changed.empty()) {
    text += (masked ? "Masked " : "Unmasked ") + json(r.changed).dump() + " in commit " + r.commit->substr(0, 12) + "\n";
  }
  if (!r.unchanged.empty()) text += "Already " + verb + "ed: " + json(r.unchanged).dump() + "\n";
  emit(ctx, {{"verb", verb}, {"changed", r.changed}, {"unchanged", r.unchanged},
             {"commit", r.commit ? json(*r.commit) : json()}}, text);
}

void run_diff(const MemoryOptions& o, Context& ctx) {
  auto ws = workspace_dir(ctx);
  int a = core::parse_version(o.version), b = core::parse_version(o.other);
  auto d = iterate::diff_records(core::read_record(ws, a, o.include_masked), core::read_record(ws, b, o.include_masked));
  json changes = json::array();
  for (const auto& e : d) {
    changes.push_back({{"path", e.path}, {"change", !e.a ? "added" : !e.b ? "removed" : "changed"},
                       {"a", e.a.value_or(json())}, {"b", e.b.value_or(json())}});
  }
  emit(ctx, {{"verb", "diff"}, {"a", core::version_name(a)}, {"b", core::version_name(b)}, {"changes", changes}},
       iterate::render_diff(core::version_name(a), core::version_name(b), d));
}

}  // namespace

void register_memory(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<MemoryOptions>();
  CLI::App* mem = app.add_subcommand("memory", "Iteration records memory/v<N>.json (validated, masked ones kept out)");
  mem->require_subcommand(1);
  auto leaf = [&](const char* name, const char* help) {
    CLI::App* s = mem->add_subcommand(name, help);
    add_workspace_option(s, ctx);
    return s;
  };
  auto masked_flag = [&](CLI::App* s, const char* help) { s->add_flag("--include-masked", o->include_masked, help); };

  CLI::App* create = leaf("create", "Create record vN (default: the next number) with defaults");
  create->add_option("version", o->version, "v<N> (default: latest + 1)");
  create->callback([o, &ctx] {
    auto ws = workspace_dir(ctx);
    int n = core::create_record(ws, o->version.empty() ? std::nullopt : std::optional<int>(core::parse_version(o->version)));
    std::string path = core::record_path(ws, n).string();
    emit(ctx, {{"verb", "create"}, {"version", core::version_name(n)}, {"path", path}},
         "Created " + core::version_name(n) + " (" + path + ")\n");
  });

  CLI::App* read = leaf("read", "Print record vN (or every unmasked record), or one --field of it");
  read->add_option("version", o->version, "v<N> (default: all unmasked records)");
  read->add_option("--field", o->field, "Dotted field path, e.g. performance.latency_us");
  masked_flag(read, "Read masked records too (an error otherwise)");
  read->add_option("--limit", o->limit, "Without a version: the newest N records (0: all)")->capture_default_str();
  read->callback([o, &ctx] { run_read(*o, ctx); });

  CLI::App* update = leaf("update", "Set fields: --set a.b=value (null, true/false, numbers and JSON are typed)");
  update->add_option("version", o->version, "v<N>")->required();
  update->add_option("--set", o->sets, "field.path=value (repeatable)")->required();
  update->add_flag("--detail", o->detail, "--json: the whole record after the update (default: the updated paths)");
  update->callback([o, &ctx] { run_update(*o, ctx); });

  CLI::App* append = leaf("append", "Append a JSON value to a list field, e.g. pitfalls_and_fixes '{...}'");
  append->add_option("version", o->version, "v<N>")->required();
  append->add_option("field", o->field, "List field: pitfalls_and_fixes, search_log, references, ...")->required();
  append->add_option("value", o->value, "The entry as JSON")->required();
  append->add_flag("--detail", o->detail, "--json: the whole record after the append (default: the new length)");
  append->callback([o, &ctx] { run_append(*o, ctx); });

  CLI::App* mask = leaf("mask", "Mask records (discarded memory, kept out of planning) and commit; never v0");
  mask->add_option("versions", o->versions, "v<N> ...")->required();
  mask->callback([o, &ctx] { run_mask(*o, ctx, true); });
  CLI::App* unmask = leaf("unmask", "Unmask records and commit");
  unmask->add_option("versions", o->versions, "v<N> ...")->required();
  unmask->callback([o, &ctx] { run_mask(*o, ctx, false); });

  CLI::App* list = leaf("list", "List every record (masked ones marked) with its time and gate");
  list->add_option("--limit", o->limit, "The newest N records (0: all)")->capture_default_str();
  list->callback([o, &ctx] {
    auto s = iterate::summarize(workspace_dir(ctx), true);
    core::LeftOut left;
    left.cut("older records", s.rows, o->limit, true);
    json rows = json::array();
    for (const auto& r : s.rows) {
      rows.push_back({{"version", r.version}, {"masked", r.masked}, {"timestamp", r.timestamp}, {"gate", r.gate},
                      {"path", "memory/" + r.version + ".json"}});
    }
    json j = {{"verb", "list"}, {"records", rows}};
    const char* how = "--limit N lists the newest N (0: all)";
    left.annotate(j, how);
    emit(ctx, j, iterate::render_list(s) + (left.empty() ? "" : left.note(how) + "\n"));
  });

  CLI::App* summary = leaf("summary", "Table of the unmasked records: gate, latency, TFLOP/s, GB/s, action, commit");
  masked_flag(summary, "Include masked records, marked [masked]");
  summary->callback([o, &ctx] {
    auto s = iterate::summarize(workspace_dir(ctx), o->include_masked);
    json j = iterate::to_json(s);
    j["verb"] = "summary";
    emit(ctx, j, iterate::render_summary(s));
  });

  CLI::App* latest = leaf("latest", "The highest-numbered unmasked record");
  masked_flag(latest, "Consider masked records too");
  latest->callback([o, &ctx] {
    auto n = iterate::latest_record(workspace_dir(ctx), o->include_masked);
    if (!n) throw Error("no unmasked record; `kgo memory create` makes v0", ExitCode::record_error);
    emit(ctx, {{"verb", "latest"}, {"version", core::version_name(*n)}}, core::version_name(*n) + "\n");
  });

  CLI::App* diff = leaf("diff", "Compare two records field by field, e.g. diff v2 v5");
  diff->add_option("a", o->version, "v<N>")->required();
  diff->add_option("b", o->other, "v<M>")->required();
  masked_flag(diff, "Allow masked records");
  diff->callback([o, &ctx] { run_diff(*o, ctx); });
}

}  // namespace kgo::cli
