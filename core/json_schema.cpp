#include "core/json_schema.hpp"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "core/error.hpp"
#include "core/files.hpp"

namespace kgo::core {

using nlohmann::json;

struct JsonSchema::Impl {
  json root;
  std::map<const json*, std::regex> patterns;

  void compile(const json& s, const std::string& where);
  const json& resolve(const std::string& ref) const;
  bool type_fits(const json& s, const json& inst, int depth = 0) const;
  void check(const json& s, const json& inst, const std::string& path,
             std::vector<SchemaViolation>& out) const;
  void check_combinator(const json& s, const json& inst, const std::string& path,
                        std::vector<SchemaViolation>& out) const;
};

namespace {

const std::set<std::string>& known_keywords() {
  static const std::set<std::string> k = {
      // assertions and applicators kgo implements
      "type", "properties", "required", "additionalProperties", "items", "enum", "const",
      "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minItems",
      "maxItems", "minLength", "maxLength", "$ref", "$defs", "oneOf", "anyOf", "allOf", "not",
      "format",
      // annotations (no effect on validity)
      "$schema", "$id", "$comment", "title", "description", "default", "examples", "deprecated",
      "readOnly", "writeOnly"};
  return k;
}

std::string type_of(const json& j) {
  switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "integer";
    case json::value_t::number_float: return "number";
    case json::value_t::string: return "string";
    case json::value_t::array: return "array";
    case json::value_t::object: return "object";
    default: return "unknown";
  }
}

bool has_type(const json& inst, const std::string& t) {
  if (t == "number") return inst.is_number();
  if (t == "integer") {
    if (inst.is_number_integer()) return true;
    if (inst.is_number_float()) {
      double d = inst.get<double>();
      return d == static_cast<double>(static_cast<long long>(d));
    }
    return false;
  }
  return type_of(inst) == t;
}

std::string join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string short_value(const json& j) {
  std::string s = j.dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

size_t utf8_length(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

Error schema_error(const std::string& where, const std::string& why) {
  return Error("bad schema at " + (where.empty() ? std::string("#") : where) + ": " + why,
               ExitCode::schema_invalid);
}

}  // namespace

void JsonSchema::Impl::compile(const json& s, const std::string& where) {
  if (s.is_boolean()) return;
  if (!s.is_object()) throw schema_error(where, "a schema must be an object or a boolean");
  for (const auto& [key, value] : s.items()) {
    if (!known_keywords().count(key) && key.rfind("x-", 0) != 0) {  // x-...: an annotation of kgo's own
      throw schema_error(where, "keyword '" + key + "' is not supported by kgo's validator");
    }
  }
  if (s.contains("$ref")) {
    const json& ref = s["$ref"];
    if (!ref.is_string()) throw schema_error(where, "$ref must be a string");
    resolve(ref.get<std::string>());  // throws when it does not resolve
  }
  if (s.contains("pattern")) {
    try {
      patterns.emplace(&s["pattern"], std::regex(s["pattern"].get<std::string>(), std::regex::ECMAScript));
    } catch (const std::exception& e) {
      throw schema_error(where, std::string("bad pattern: ") + e.what());
    }
  }
  for (const char* key : {"properties", "$defs"}) {
    if (!s.contains(key)) continue;
    if (!s[key].is_object()) throw schema_error(where, std::string(key) + " must be an object");
    for (const auto& [name, sub] : s[key].items()) compile(sub, where + "/" + key + "/" + name);
  }
  for (const char* key : {"additionalProperties", "items", "not"}) {
    if (s.contains(key)) compile(s[key], where + "/" + key);
  }
  for (const char* key : {"oneOf", "anyOf", "allOf"}) {
    if (!s.contains(key)) continue;
    if (!s[key].is_array() || s[key].empty()) throw schema_error(where, std::string(key) + " must be a non-empty array");
    for (size_t i = 0; i < s[key].size(); ++i) compile(s[key][i], where + "/" + key + "/" + std::to_string(i));
  }
  if (s.contains("required") && !s["required"].is_array()) throw schema_error(where, "required must be an array");
  if (s.contains("enum") && !s["enum"].is_array()) throw schema_error(where, "enum must be an array");
}

const json& JsonSchema::Impl::resolve(const std::string& ref) const {
  if (ref == "#") return root;
  if (ref.rfind("#/", 0) != 0) {
    throw schema_error(ref, "only local references (#/$defs/...) are supported");
  }
  try {
    const json& target = root.at(json::json_pointer(ref.substr(1)));
    return target;
  } catch (const json::exception&) {
    throw schema_error(ref, "$ref does not resolve");
  }
}

// Whether `inst` has the shape (type / const / enum) a branch of oneOf/anyOf is about; used to pick
// the branch whose errors are worth reporting.
bool JsonSchema::Impl::type_fits(const json& s, const json& inst, int depth) const {
  if (!s.is_object() || depth > 16) return true;
  if (s.contains("$ref") && !type_fits(resolve(s["$ref"].get<std::string>()), inst, depth + 1)) return false;
  if (s.contains("type")) {
    const json& t = s["type"];
    bool ok = false;
    if (t.is_string()) ok = has_type(inst, t.get<std::string>());
    for (const auto& one : t.is_array() ? t : json::array()) ok = ok || has_type(inst, one.get<std::string>());
    if (!ok) return false;
  }
  if (s.contains("const") && s["const"] != inst) return false;
  if (s.contains("enum") && std::find(s["enum"].begin(), s["enum"].end(), inst) == s["enum"].end()) return false;
  return true;
}

void JsonSchema::Impl::check(const json& s, const json& inst, const std::string& path,
                             std::vector<SchemaViolation>& out) const {
  if (s.is_boolean()) {
    if (!s.get<bool>()) out.push_back({path, "is not allowed"});
    return;
  }
  if (s.contains("$ref")) check(resolve(s["$ref"].get<std::string>()), inst, path, out);
  if (s.contains("type")) {
    const json& t = s["type"];
    bool ok = false;
    std::string names;
    for (const auto& one : t.is_array() ? t : json::array({t})) {
      ok = ok || has_type(inst, one.get<std::string>());
      names += (names.empty() ? "" : " or ") + one.get<std::string>();
    }
    if (!ok) {
      out.push_back({path, "must be " + names + ", got " + type_of(inst)});
      return;
    }
  }
  if (s.contains("const") && s["const"] != inst) {
    out.push_back({path, "must be " + short_value(s["const"]) + ", got " + short_value(inst)});
  }
  if (s.contains("enum") && std::find(s["enum"].begin(), s["enum"].end(), inst) == s["enum"].end()) {
    std::string allowed;
    for (const auto& v : s["enum"]) allowed += (allowed.empty() ? "" : ", ") + v.dump();
    out.push_back({path, "must be one of " + allowed + ", got " + short_value(inst)});
  }
  if (inst.is_object()) {
    const json* props = s.contains("properties") ? &s["properties"] : nullptr;
    for (const auto& r : s.value("required", json::array())) {
      if (!inst.contains(r.get<std::string>())) out.push_back({join(path, r.get<std::string>()), "is required"});
    }
    for (const auto& [key, value] : inst.items()) {
      if (props && props->contains(key)) {
        check((*props)[key], value, join(path, key), out);
      } else if (s.contains("additionalProperties")) {
        const json& extra = s["additionalProperties"];
        if (extra.is_boolean() && !extra.get<bool>()) {
          out.push_back({join(path, key), "is not a known field"});
        } else {
          check(extra, value, join(path, key), out);
        }
      }
    }
  }
  if (inst.is_array()) {
    if (s.contains("minItems") && inst.size() < s["minItems"].get<size_t>()) {
      out.push_back({path, "must have at least " + s["minItems"].dump() + " items, has " + std::to_string(inst.size())});
    }
    if (s.contains("maxItems") && inst.size() > s["maxItems"].get<size_t>()) {
      out.push_back({path, "must have at most " + s["maxItems"].dump() + " items, has " + std::to_string(inst.size())});
    }
    if (s.contains("items")) {
      for (size_t i = 0; i < inst.size(); ++i) check(s["items"], inst[i], path + "[" + std::to_string(i) + "]", out);
    }
  }
  if (inst.is_string()) {
    const std::string& str = inst.get_ref<const std::string&>();
    if (s.contains("minLength") && utf8_length(str) < s["minLength"].get<size_t>()) {
      out.push_back({path, "must be at least " + s["minLength"].dump() + " characters long"});
    }
    if (s.contains("maxLength") && utf8_length(str) > s["maxLength"].get<size_t>()) {
      out.push_back({path, "must be at most " + s["maxLength"].dump() + " characters long"});
    }
    if (auto it = patterns.find(s.contains("pattern") ? &s["pattern"] : nullptr); it != patterns.end()) {
      if (!std::regex_search(str, it->second)) {
        out.push_back({path, "must match the pattern " + s["pattern"].get<std::string>() + ", got " + short_value(inst)});
      }
    }
    if (s.value("format", "") == "date-time") {
      static const std::regex iso(R"(^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$)");
      if (!std::regex_match(str, iso)) out.push_back({path, "must be an ISO 8601 date-time, got " + short_value(inst)});
    }
  }
  if (inst.is_number()) {
    double v = inst.get<double>();
    auto bound = [&](const char* key, bool bad, const std::string& what) {
      if (s.contains(key) && bad) out.push_back({path, "must be " + what + " " + s[key].dump() + ", got " + inst.dump()});
    };
    if (s.contains("minimum")) bound("minimum", v < s["minimum"].get<double>(), ">=");
    if (s.contains("maximum")) bound("maximum", v > s["maximum"].get<double>(), "<=");
    if (s.contains("exclusiveMinimum")) bound("exclusiveMinimum", v <= s["exclusiveMinimum"].get<double>(), ">");
    if (s.contains("exclusiveMaximum")) bound("exclusiveMaximum", v >= s["exclusiveMaximum"].get<double>(), "<");
  }
  check_combinator(s, inst, path, out);
}

void JsonSchema::Impl::check_combinator(const json& s, const json& inst, const std::string& path,
                                        std::vector<SchemaViolation>& out) const {
  for (const auto& sub : s.value("allOf", json::array())) check(sub, inst, path, out);
  if (s.contains("not")) {
    std::vector<SchemaViolation> errs;
    check(s["not"], inst, path, errs);
    if (errs.empty()) out.push_back({path, "must not match " + short_value(s["not"])});
  }
  for (const char* key : {"anyOf", "oneOf"}) {
    if (!s.contains(key)) continue;
    const json& branches = s[key];
    size_t matches = 0;
    std::vector<std::vector<SchemaViolation>> errs(branches.size());
    for (size_t i = 0; i < branches.size(); ++i) {
      check(branches[i], inst, path, errs[i]);
      matches += errs[i].empty();
    }
    if (matches == 1 || (matches > 1 && std::string(key) == "anyOf")) continue;
    if (matches > 1) {
      out.push_back({path, "matches more than one of the allowed forms"});
      continue;
    }
    // No branch matched: report the errors of the one branch the value's shape is meant for.
    std::vector<size_t> fitting;
    for (size_t i = 0; i < branches.size(); ++i) {
      if (type_fits(branches[i], inst)) fitting.push_back(i);
    }
    if (fitting.size() == 1) {
      out.insert(out.end(), errs[fitting[0]].begin(), errs[fitting[0]].end());
    } else {
      std::string forms;
      for (const auto& e : errs) forms += (forms.empty() ? "" : "; or ") + (e.empty() ? std::string("?") : e.front().message);
      out.push_back({path, "matches none of the allowed forms (" + forms + ")"});
    }
  }
}

JsonSchema::JsonSchema(json schema) {
  auto impl = std::make_shared<Impl>();
  impl->root = std::move(schema);
  impl->compile(impl->root, "");
  m_impl = impl;
}

JsonSchema JsonSchema::load(const std::filesystem::path& file) {
  std::string text = read_file(file);
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) {
    throw Error("schema " + file.string() + " is not valid JSON", ExitCode::schema_invalid);
  }
  try {
    return JsonSchema(std::move(j));
  } catch (const Error& e) {
    throw Error(file.string() + ": " + e.what(), ExitCode::schema_invalid);
  }
}

std::vector<SchemaViolation> JsonSchema::validate(const json& instance) const {
  std::vector<SchemaViolation> out;
  m_impl->check(m_impl->root, instance, "", out);
  return out;
}

std::string describe(const SchemaViolation& v) {
  return (v.path.empty() ? std::string("the document") : "field '" + v.path + "'") + " " + v.message;
}

void JsonSchema::validate_or_throw(const json& instance, const std::string& what) const {
  auto errs = validate(instance);
  if (errs.empty()) return;
  std::string msg = what + ": " + describe(errs.front());
  if (errs.size() > 1) msg += " (and " + std::to_string(errs.size() - 1) + " more problem" + (errs.size() > 2 ? "s" : "") + ")";
  throw Error(msg, ExitCode::schema_invalid);
}

}  // namespace kgo::core
