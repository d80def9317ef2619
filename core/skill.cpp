#include "core/skill.hpp"

#include <algorithm>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/files.hpp"

namespace kgo::core {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

constexpr const char* k_block_begin = "# >>> kgo skill: written by `kgo skill install`, removed by `kgo skill uninstall` >>>";
constexpr const char* k_block_end = "# <<< kgo skill <<<";

[[noreturn]] void conflict(const std::string& msg) {
  throw Error(msg, ExitCode::client_config);
}

// One file install touches: its bytes before (nullopt: absent) and after, and for a JSON config the
// members and array elements kgo added and the containers it created (JSON pointers).
struct Edit {
  fs::path path;
  std::optional<std::string> before;
  std::string after;
  std::string kind;  // file, json, toml
  Json members = Json::array(), elements = Json::array(), containers = Json::array();
};

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string toml_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) conflict("the kgo path " + s + " holds a control character; install kgo elsewhere");
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

Json parse_config(const fs::path& path, const std::optional<std::string>& text) {
  if (!text || text->find_first_not_of(" \t\r\n") == std::string::npos) return Json::object();
  Json j = Json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    conflict(path.string() + " is not a JSON object; fix or move it aside, then rerun `kgo skill install`");
  }
  return j;
}

// The object at `keys` under `doc`, created (and recorded) where missing.
Json& object_at(Json& doc, const std::vector<std::string>& keys, Edit& e, const fs::path& path) {
  Json* cur = &doc;
  std::string ptr;
  for (const auto& k : keys) {
    ptr += "/" + k;
    if (!cur->contains(k)) {
      (*cur)[k] = Json::object();
      e.containers.push_back(ptr);
    } else if (!(*cur)[k].is_object()) {
      conflict(path.string() + ": " + ptr + " is not an object; fix it, then rerun `kgo skill install`");
    }
    cur = &(*cur)[k];
  }
  return *cur;
}

void add_member(Json& doc, const std::vector<std::string>& keys, const std::string& name, const Json& value, Edit& e) {
  Json& obj = object_at(doc, keys, e, e.path);
  std::string ptr;
  for (const auto& k : keys) ptr += "/" + k;
  if (obj.contains(name)) {
    conflict(e.path.string() + " already has " + ptr + "/" + name + ", not installed by kgo; remove it, then rerun `kgo skill install`");
  }
  obj[name] = value;
  e.members.push_back({{"pointer", ptr + "/" + name}, {"value", value}});
}

void add_element(Json& doc, const std::vector<std::string>& keys, const std::string& name, const Json& value, Edit& e) {
  Json& obj = object_at(doc, keys, e, e.path);
  std::string ptr;
  for (const auto& k : keys) ptr += "/" + k;
  ptr += "/" + name;
  if (!obj.contains(name)) {
    obj[name] = Json::array();
    e.containers.push_back(ptr);
  } else if (!obj[name].is_array()) {
    conflict(e.path.string() + ": " + ptr + " is not an array; fix it, then rerun `kgo skill install`");
  }
  obj[name].push_back(value);
  e.elements.push_back({{"pointer", ptr}, {"value", value}});
}

std::string dump(const Json& j) { return j.dump(2) + "\n"; }

Edit json_edit(const fs::path& path) {
  Edit e;
  e.path = path;
  e.kind = "json";
  e.before = try_read_file(path);
  if (fs::exists(path) && !e.before) conflict(path.string() + " exists but cannot be read; fix its permissions");
  return e;
}

std::vector<Json> hook_groups(const SkillInstallOptions& o, const std::string& matcher) {
  std::string exe = shell_quote(o.kgo_exe.string());
  Json pre = {{"matcher", matcher},
              {"hooks", Json::array({{{"type", "command"}, {"command", exe + " skill hook pre-tool"}, {"timeout", 30}}})}};
  std::string state = shell_quote((client_dir(o.client, o.home) / "kgo-stop-hook.json").string());
  Json stop = {{"hooks", Json::array({{{"type", "command"},
                                       {"command", exe + " skill hook stop --state " + state},
                                       {"timeout", 60}}})}};
  return {pre, stop};
}

std::vector<Edit> plan_edits(const SkillInstallOptions& o) {
  fs::path dir = client_dir(o.client, o.home);
  std::vector<Edit> edits;
  Edit skill;
  skill.path = dir / "skills" / "kgo" / "SKILL.md";
  skill.kind = "file";
  skill.before = try_read_file(skill.path);
  skill.after = o.skill_md;
  if (skill.before && *skill.before != o.skill_md) {
    conflict(skill.path.string() + " exists and is not kgo's skill; move it aside, then rerun `kgo skill install`");
  }
  if (!skill.before) edits.push_back(skill);
  Json server = {{"command", o.kgo_exe.string()}, {"args", Json::array({"mcp"})}};
  if (o.mcp && o.client == SkillClient::claude) {
    Edit e = json_edit(o.home / ".claude.json");
    Json doc = parse_config(e.path, e.before);
    Json entry = {{"type", "stdio"}, {"command", o.kgo_exe.string()}, {"args", Json::array({"mcp"})}};
    add_member(doc, {"mcpServers"}, "kgo", entry, e);
    e.after = dump(doc);
    edits.push_back(e);
  }
  if (o.mcp && o.client == SkillClient::codex) {
    Edit e;
    e.path = dir / "config.toml";
    e.kind = "toml";
    e.before = try_read_file(e.path);
    std::string text = e.before.value_or("");
    for (const char* t : {"[mcp_servers.kgo]", "[mcp_servers.\"kgo\"]", "mcp_servers.kgo."}) {
      std::string flat = text;
      flat.erase(std::remove_if(flat.begin(), flat.end(), [](char c) { return c == ' ' || c == '\t'; }), flat.end());
      if (flat.find(t) != std::string::npos) {
        conflict(e.path.string() + " already configures an MCP server named kgo, not installed by kgo; remove that table, then rerun");
      }
    }
    std::string block = std::string(text.empty() || text.back() == '\n' ? "" : "\n") + (text.empty() ? "" : "\n") +
                        k_block_begin + "\n[mcp_servers.kgo]\ncommand = " + toml_string(o.kgo_exe.string()) +
                        "\nargs = [\"mcp\"]\n" + k_block_end + "\n";
    e.after = text + block;
    e.members.push_back({{"block", block}});
    edits.push_back(e);
  }
  if (o.hooks) {
    bool claude = o.client == SkillClient::claude;
    Edit e = json_edit(claude ? dir / "settings.json" : dir / "hooks.json");
    Json doc = parse_config(e.path, e.before);
    auto groups = hook_groups(o, claude ? "Edit|Write|MultiEdit|NotebookEdit|Bash" : "Bash|apply_patch|Edit|Write");
    add_element(doc, {"hooks"}, "PreToolUse", groups[0], e);
    add_element(doc, {"hooks"}, "Stop", groups[1], e);
    e.after = dump(doc);
    edits.push_back(e);
  }
  return edits;
}

Json to_json(const Edit& e) {
  return {{"path", e.path.string()}, {"kind", e.kind}, {"before", e.before ? Json(*e.before) : Json()},
          {"after", e.after}, {"members", e.members}, {"elements", e.elements}, {"containers", e.containers}};
}

fs::path manifest_path(SkillClient c, const fs::path& home) { return client_dir(c, home) / "kgo-skill-manifest.json"; }

void require_home(const fs::path& home) {
  std::error_code ec;
  if (home.empty() || !home.is_absolute() || !fs::is_directory(home, ec)) {
    throw Error("home directory '" + home.string() + "' is not an existing absolute directory; set $HOME or pass --home DIR",
                ExitCode::not_writable);
  }
}

// Removes kgo's members and elements from a JSON config the client has rewritten since install.
std::optional<std::string> remove_from_json(const Json& m, const std::string& text) {
  Json doc = Json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
  for (const auto& x : m["members"]) {
    Json::json_pointer p(x["pointer"].get<std::string>());
    if (doc.contains(p) && doc[p] == x["value"]) doc[p.parent_pointer()].erase(p.back());
  }
  for (const auto& x : m["elements"]) {
    Json::json_pointer p(x["pointer"].get<std::string>());
    if (!doc.contains(p) || !doc[p].is_array()) continue;
    auto& arr = doc[p];
    auto it = std::find(arr.begin(), arr.end(), x["value"]);
    if (it != arr.end()) arr.erase(it);
  }
  std::vector<std::string> created = m["containers"].get<std::vector<std::string>>();
  std::sort(created.begin(), created.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  for (const auto& c : created) {
    Json::json_pointer p(c);
    if (doc.contains(p) && doc[p].empty()) doc[p.parent_pointer()].erase(p.back());
  }
  return dump(doc);
}

SkillChange undo(const Json& m) {
  fs::path path = m["path"].get<std::string>();
  auto cur = try_read_file(path);
  std::optional<std::string> before;
  if (m["before"].is_string()) before = m["before"].get<std::string>();
  std::string after = m["after"];
  if (cur == before) return {path.string(), "unchanged"};
  if (cur && *cur == after) {
    if (before) {
      write_file_atomic(path, *before);
      return {path.string(), "restored"};
    }
    fs::remove(path);
    return {path.string(), "removed"};
  }
  if (!cur) return {path.string(), "left"};
  std::string kind = m["kind"];
  std::optional<std::string> next;
  if (kind == "json") next = remove_from_json(m, *cur);
  if (kind == "toml") {
    std::string block = m["members"][0]["block"];
    auto at = cur->find(block);
    if (at != std::string::npos) next = cur->substr(0, at) + cur->substr(at + block.size());
  }
  if (!next) return {path.string(), "left"};
  if (!before && (next->find_first_not_of(" \t\r\n{}") == std::string::npos)) {
    fs::remove(path);
    return {path.string(), "removed"};
  }
  write_file_atomic(path, *next);
  return {path.string(), "updated"};
}

}  // namespace

std::string client_name(SkillClient c) { return c == SkillClient::claude ? "claude" : "codex"; }

fs::path client_dir(SkillClient c, const fs::path& home) {
  return home / (c == SkillClient::claude ? ".claude" : ".codex");
}

SkillResult skill_uninstall(SkillClient client, const fs::path& home) {
  require_home(home);
  SkillResult r{client_name(client), "not_installed", manifest_path(client, home).string(), {}, {}};
  auto text = try_read_file(r.manifest);
  if (!text) return r;
  Json m = Json::parse(*text, nullptr, false);
  if (m.is_discarded() || !m.contains("files") || !m.contains("dirs")) {
    conflict(r.manifest + " is not a kgo skill manifest; remove what `kgo skill install` added by hand, then delete it");
  }
  auto files = m["files"];
  for (auto it = files.rbegin(); it != files.rend(); ++it) {
    SkillChange c = undo(*it);
    if (c.action == "left") r.notes.push_back(c.path + " was changed since install and no longer holds kgo's entry as written; left as it is");
    r.changes.push_back(c);
  }
  fs::remove(r.manifest);
  auto dirs = m["dirs"].get<std::vector<std::string>>();
  std::error_code ec;
  for (auto it = dirs.rbegin(); it != dirs.rend(); ++it) {
    if (fs::is_directory(*it, ec) && fs::is_empty(*it, ec)) fs::remove(*it, ec);
  }
  fs::remove(client_dir(client, home) / "kgo-stop-hook.json", ec);
  r.state = "uninstalled";
  return r;
}

SkillResult skill_install(const SkillInstallOptions& o) {
  require_home(o.home);
  SkillResult r{client_name(o.client), "installed", manifest_path(o.client, o.home).string(), {}, {}};
  if (auto text = try_read_file(r.manifest)) {
    Json m = Json::parse(*text, nullptr, false);
    bool same = !m.is_discarded() && m.value("kgo", "") == o.kgo_exe.string() && m.value("hooks", false) == o.hooks &&
                m.value("mcp", false) == o.mcp && m.value("skill_sha256", "") == sha256_hex(o.skill_md);
    if (same) {
      for (const auto& f : m["files"]) same = same && try_read_file(f["path"].get<std::string>()) == f["after"].get<std::string>();
    }
    if (same) {
      r.state = "unchanged";
      return r;
    }
    SkillResult u = skill_uninstall(o.client, o.home);
    r.notes.push_back("replaced the earlier install (other options, kgo path or skill text)");
    r.notes.insert(r.notes.end(), u.notes.begin(), u.notes.end());
  }
  std::vector<Edit> edits = plan_edits(o);  // every refusal happens here, before anything is written
  Json dirs = Json::array();
  std::vector<fs::path> needed = {client_dir(o.client, o.home), client_dir(o.client, o.home) / "skills",
                                  client_dir(o.client, o.home) / "skills" / "kgo"};
  std::error_code ec;
  for (const auto& d : needed) {
    if (fs::exists(d, ec)) continue;
    if (!fs::create_directory(d, ec)) throw Error("cannot create " + d.string() + ": " + ec.message(), ExitCode::not_writable);
    dirs.push_back(d.string());
  }
  Json m = {{"kgo_skill_manifest", 1}, {"client", r.client}, {"kgo", o.kgo_exe.string()}, {"hooks", o.hooks},
            {"mcp", o.mcp}, {"skill_sha256", sha256_hex(o.skill_md)}, {"dirs", dirs}, {"files", Json::array()}};
  for (const auto& e : edits) m["files"].push_back(to_json(e));
  std::string manifest;
  try {
    manifest = m.dump(2) + "\n";
  } catch (const nlohmann::json::exception&) {
    conflict("a client config is not UTF-8 text; fix it, then rerun `kgo skill install`");
  }
  // The manifest first: an install cut short is then undone by `kgo skill uninstall`.
  write_file_atomic(r.manifest, manifest);
  for (const auto& e : edits) {
    write_file_atomic(e.path, e.after);
    r.changes.push_back({e.path.string(), e.before ? "updated" : "created"});
  }
  if (o.hooks && o.client == SkillClient::codex) {
    r.notes.push_back("Codex runs hooks from ~/.codex/hooks.json when its hooks feature is on (default from Codex 0.124)");
  }
  return r;
}

}  // namespace kgo::core
