#pragma once
// A validator for the subset of JSON Schema draft 2020-12 that kgo's schemas use: type, properties,
// required, additionalProperties, items, enum, const, pattern, minimum/maximum (and exclusive),
// minItems/maxItems, minLength/maxLength, $ref to local $defs, oneOf/anyOf/allOf/not.
// A schema using any other assertion keyword is refused when loaded, so it never means less than it says.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kgo::core {

struct SchemaViolation {
  std::string path;     // "performance.latency_us", "pitfalls_and_fixes[2].lesson", "" for the root
  std::string message;  // "must be a number, got string"
};

class JsonSchema {
 public:
  // Throws Error(schema_invalid) when `schema` uses an unsupported keyword or a bad $ref/pattern.
  explicit JsonSchema(nlohmann::json schema);
  // Reads and compiles a schema file; throws Error(schema_invalid) naming the file.
  static JsonSchema load(const std::filesystem::path& file);

  // Every violation found (empty when `instance` is valid).
  std::vector<SchemaViolation> validate(const nlohmann::json& instance) const;
  // Throws Error(schema_invalid): "<what>: field 'a.b' must be ..." for the first violation.
  void validate_or_throw(const nlohmann::json& instance, const std::string& what) const;

  struct Impl;

 private:
  std::shared_ptr<const Impl> m_impl;
};

// "field 'a.b' must be ..." (or "the document must be ..." at the root).
std::string describe(const SchemaViolation& v);

}  // namespace kgo::core
