// Output schemas for MCP: a client validates structuredContent against the schema alone (no
// registry), so references to other schema files are inlined under $defs. What tools/list carries
// is the top level of that bundle (every field, its type, which are required) or the error answer;
// the whole bundle is the resource kgo://schemas/<file>, read once where a client wants it.
#include <algorithm>
#include <map>

#include "mcp/mcp.hpp"
#include "core/files.hpp"
#include "core/resources.hpp"

namespace kgo::mcp {

namespace {

namespace fs = std::filesystem;

class Bundler {
 public:
  explicit Bundler(const fs::path& root_file) : m_dir(core::data_dir() / "schemas") {
    m_root = json::parse(core::read_file(m_dir / root_file));
    rewrite(m_root, "#", root_file.parent_path());
    for (auto& [key, doc] : m_embedded) m_root["$defs"][key] = std::move(doc);
    if (!m_root.contains("type")) m_root["type"] = "object";
  }
  json take() { return std::move(m_root); }

 private:
  // Rewrites every $ref under `node` of a document embedded at `prefix` and located in `dir`.
  void rewrite(json& node, const std::string& prefix, const fs::path& dir) {
    if (node.is_array()) {
      for (json& x : node) rewrite(x, prefix, dir);
      return;
    }
    if (!node.is_object()) return;
    for (auto& [k, v] : node.items()) {
      if (k == "$ref" && v.is_string()) v = resolve(v.get<std::string>(), prefix, dir);
      else rewrite(v, prefix, dir);
    }
  }

  std::string resolve(const std::string& ref, const std::string& prefix, const fs::path& dir) {
    auto hash = ref.find('#');
    std::string file = ref.substr(0, hash);
    std::string fragment = hash == std::string::npos ? "" : ref.substr(hash + 1);
    if (file.empty()) return prefix + fragment;
    return "#/$defs/" + embed((dir / file).lexically_normal()) + fragment;
  }

  std::string embed(const fs::path& relative) {
    std::string key = "file_" + relative.generic_string();
    for (char& c : key) {
      if (c == '/' || c == '.' || c == '~') c = '_';
    }
    if (m_keys.count(key)) return key;
    m_keys[key] = true;
    json doc = json::parse(core::read_file(m_dir / relative));
    doc.erase("$schema");
    doc.erase("$id");
    rewrite(doc, "#/$defs/" + key, relative.parent_path());
    m_embedded[key] = std::move(doc);
    return key;
  }

  fs::path m_dir;
  json m_root;
  std::map<std::string, bool> m_keys;
  std::map<std::string, json> m_embedded;
};

// `n` with its local $ref chain followed (siblings of a $ref override the target's keywords).
const json& deref(const json& doc, const json& n, json& scratch) {
  const json* at = &n;
  for (int hops = 0; at->is_object() && at->contains("$ref") && hops < 16; ++hops) {
    std::string ref = (*at)["$ref"].get<std::string>();
    if (ref.rfind("#", 0) != 0) break;
    json::json_pointer ptr(ref.substr(1));
    if (!doc.contains(ptr)) break;
    json merged = doc.at(ptr);
    for (auto& [k, v] : at->items()) {
      if (k != "$ref") merged[k] = v;
    }
    scratch = std::move(merged);
    at = &scratch;
  }
  return *at;
}

// The schema `n` to `depth` levels of properties: type, enum, const and required kept; below that
// only the type. Alternatives (oneOf, anyOf) keep their depth.
json shallow(const json& doc, const json& node, int depth) {
  json scratch;
  const json& n = deref(doc, node, scratch);
  if (!n.is_object()) return n;
  json out = json::object();
  for (const char* k : {"type", "enum", "const"}) {
    if (n.contains(k)) out[k] = n[k];
  }
  if (depth <= 0) return out;
  if (n.contains("required")) out["required"] = n["required"];
  if (n.contains("properties") && n["properties"].is_object()) {
    for (auto& [k, v] : n["properties"].items()) out["properties"][k] = shallow(doc, v, depth - 1);
  }
  if (n.contains("additionalProperties") && n["additionalProperties"].is_boolean()) {
    out["additionalProperties"] = n["additionalProperties"];
  }
  for (const char* k : {"oneOf", "anyOf"}) {
    if (!n.contains(k)) continue;
    for (const auto& alt : n[k]) out[k].push_back(shallow(doc, alt, depth));
  }
  if (n.contains("items") && n["items"].is_object()) out["items"] = shallow(doc, n["items"], depth - 1);
  return out;
}

json top_level(const std::string& relative) {
  json full = bundled_schema(relative);
  return shallow(full, full, 1);
}

}  // namespace

json bundled_schema(const std::string& relative) { return Bundler(relative).take(); }

json output_schema(const std::string& relative, const std::string& verb) {
  // kgo's error answer (schemas/cli/error.schema.json), its two fields only: the one part every tool repeats.
  static const json error = {{"required", {"error", "exit_code"}},
                             {"properties", {{"error", {{"type", "string"}}}, {"exit_code", {{"type", "integer"}}}}}};
  json top = top_level(relative);
  if (!verb.empty() && top.contains("oneOf")) {  // a command's schema with one alternative per verb
    json kept = json::array();
    for (const auto& alt : top["oneOf"]) {
      const json v = alt.value("properties", json::object()).value("verb", json::object());
      const json e = v.value("enum", json::array());
      if (v.value("const", json()) == verb || std::find(e.begin(), e.end(), json(verb)) != e.end()) kept.push_back(alt);
    }
    if (kept.size() == 1) top = kept[0];
    else if (!kept.empty()) top["oneOf"] = kept;
  }
  return {{"type", "object"}, {"anyOf", json::array({top, error})}};
}

}  // namespace kgo::mcp
