// validate_registry_json: field-by-field checks with precise messages (and the rules a schema cannot
// say: one entry per metric and kind, citation agreeing with file and line), then the schema itself.
#include <set>
#include <utility>

#include "core/error.hpp"
#include "core/json_schema.hpp"
#include "core/resources.hpp"
#include "gpu-wiki-index/index.hpp"
#include "specs/citation.hpp"
#include "specs/registry.hpp"
#include "specs/text.hpp"

namespace kgo::specs {

using nlohmann::json;

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& why) {
  throw Error("specs.json " + where + " " + why, ExitCode::schema_invalid);
}

const json& field(const json& obj, const std::string& where, const char* key, json::value_t type) {
  if (!obj.contains(key)) fail(where, std::string("is missing '") + key + "'");
  const json& v = obj.at(key);
  bool ok = v.type() == type ||
            (type == json::value_t::number_float && v.is_number()) ||
            (type == json::value_t::number_integer && v.is_number_integer());
  if (!ok) fail(where + "." + key, std::string("has the wrong type (") + v.type_name() + ")");
  return v;
}

bool is_hex64(const std::string& s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

bool is_metric_name(const std::string& s) {
  if (s.empty() || !(s[0] >= 'a' && s[0] <= 'z')) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

void check_entry(const json& e, const std::string& where) {
  if (!e.is_object()) fail(where, "is not an object");
  static const std::set<std::string> allowed = {
      "metric", "label", "product", "unknown", "measured", "approximate", "value", "value_text",
      "unit", "si_value", "dimension", "citation", "file", "line", "line_text", "line_sha256",
      "file_sha256", "added_at"};
  for (const auto& [k, v] : e.items()) {
    if (!allowed.count(k)) fail(where, "has an unknown field '" + k + "'");
  }
  using T = json::value_t;
  if (!is_metric_name(field(e, where, "metric", T::string).get<std::string>())) {
    fail(where + ".metric", "is not a metric name (lower_snake_case)");
  }
  field(e, where, "label", T::string);
  field(e, where, "product", T::string);
  bool unknown = field(e, where, "unknown", T::boolean).get<bool>();
  field(e, where, "measured", T::boolean);
  field(e, where, "added_at", T::string);
  if (unknown) return;
  for (const char* k : {"value", "si_value"}) field(e, where, k, T::number_float);
  for (const char* k : {"value_text", "unit", "dimension", "file", "line_text"}) field(e, where, k, T::string);
  static const std::set<std::string> dims = {"bytes_per_s", "flop_per_s", "bytes", "hz",
                                             "watts",       "seconds",    "count"};
  if (!dims.count(e.at("dimension").get<std::string>())) {
    fail(where + ".dimension", "is not one of bytes_per_s, flop_per_s, bytes, hz, watts, seconds, count");
  }
  // si_value is derived data: recomputed from value and unit, so a hand edit cannot move a target.
  double value = e.at("value").get<double>();
  auto q = wiki::normalize(value, e.at("unit").get<std::string>());
  // A capacity registered before kgo read KB/MB/GB as binary keeps its decimal si_value: no target uses a capacity.
  auto legacy = wiki::normalize_decimal_capacity(value, e.at("unit").get<std::string>());
  double si = e.at("si_value").get<double>();
  if (!q || q->dimension != e.at("dimension").get<std::string>() ||
      !(same_value(q->value, si) || (legacy && same_value(legacy->value, si)))) {
    fail(where + ".si_value", "does not equal value and unit converted to base units (" +
                                  (q ? format_number(q->value) + " " + q->dimension : std::string("unknown unit")) +
                                  "); specs.json was edited by hand: re-register the spec with kgo spec add");
  }
  auto written = numbers_in(e.at("value_text").get<std::string>());
  if (written.empty() || !same_value(written.front().value, value)) {
    fail(where + ".value_text", "does not state value " + format_number(value) + "; re-register the spec with kgo spec add");
  }
  int line = field(e, where, "line", T::number_integer).get<int>();
  if (line < 1) fail(where + ".line", "must be >= 1");
  for (const char* k : {"line_sha256", "file_sha256"}) {
    if (!is_hex64(field(e, where, k, T::string).get<std::string>())) {
      fail(std::string(where) + "." + k, "is not a lower-case hex SHA-256");
    }
  }
  std::string cit = field(e, where, "citation", T::string).get<std::string>();
  Citation c;
  try {
    c = parse_citation(cit);
  } catch (const Error& err) {
    fail(where + ".citation", std::string("is malformed: ") + err.what());
  }
  if (c.line != line || c.path != e.at("file").get<std::string>()) {
    fail(where + ".citation", "does not match its file and line fields");
  }
}

}  // namespace

void validate_registry_json(const json& j) {
  using T = json::value_t;
  if (!j.is_object()) fail("document", "is not an object");
  static const std::set<std::string> allowed = {"schema_version", "platform", "wiki_path",
                                                "wiki_fingerprint", "specs", "pitfalls"};
  for (const auto& [k, v] : j.items()) {
    if (!allowed.count(k)) fail("document", "has an unknown field '" + k + "'");
  }
  if (field(j, "document", "schema_version", T::number_integer).get<int>() != 1) {
    fail("schema_version", "must be 1");
  }
  for (const char* k : {"platform", "wiki_path", "wiki_fingerprint"}) field(j, "document", k, T::string);
  const json& specs = field(j, "document", "specs", T::array);
  std::set<std::pair<std::string, bool>> seen;
  for (size_t i = 0; i < specs.size(); ++i) {
    std::string where = "specs[" + std::to_string(i) + "]";
    check_entry(specs[i], where);
    auto key = std::make_pair(specs[i].at("metric").get<std::string>(), specs[i].at("measured").get<bool>());
    if (!seen.insert(key).second) fail(where, "repeats metric '" + key.first + "'");
  }
  const json& pitfalls = field(j, "document", "pitfalls", T::array);
  for (size_t i = 0; i < pitfalls.size(); ++i) {
    std::string where = "pitfalls[" + std::to_string(i) + "]";
    if (!pitfalls[i].is_object()) fail(where, "is not an object");
    for (const char* k : {"metric", "error_type", "error_message", "root_cause", "fix_applied",
                          "lesson", "at"}) {
      field(pitfalls[i], where, k, T::string);
    }
  }
  static const core::JsonSchema schema = core::JsonSchema::load(core::data_file("schemas/specs.schema.json"));
  schema.validate_or_throw(j, "specs.json");
}

}  // namespace kgo::specs
