#include "core/json_schema.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/memory.hpp"

namespace kgo::core {

namespace {

using nlohmann::json;

const json k_schema = json::parse(R"({
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "required": ["name", "performance"],
  "additionalProperties": false,
  "properties": {
    "name": {"type": "string", "pattern": "^v[0-9]+$", "minLength": 2, "maxLength": 5},
    "kind": {"enum": ["a", "b"]},
    "fixed": {"const": 1},
    "count": {"type": "integer", "minimum": 0, "maximum": 10},
    "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
    "performance": {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/perf"}]},
    "tags": {"type": "array", "items": {"$ref": "#/$defs/tag"}, "minItems": 1, "maxItems": 3},
    "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    "notzero": {"not": {"const": 0}},
    "both": {"allOf": [{"type": "number"}, {"minimum": 5}]}
  },
  "$defs": {
    "perf": {"type": "object", "required": ["latency_us"], "additionalProperties": false,
             "properties": {"latency_us": {"type": "number", "exclusiveMinimum": 0}}},
    "tag": {"type": "object", "required": ["label"], "properties": {"label": {"type": "string"}}}
  }
})");

std::vector<SchemaViolation> check(json instance) { return JsonSchema(k_schema).validate(instance); }

json valid() { return {{"name", "v3"}, {"performance", {{"latency_us", 1.5}}}}; }

// The single violation of `instance`, as "path: message".
std::string only(json instance) {
  auto v = check(std::move(instance));
  if (v.size() != 1) return "expected one violation, got " + std::to_string(v.size());
  return v[0].path + ": " + v[0].message;
}

}  // namespace

TEST(JsonSchemaTest, AcceptsValidDocuments) {
  EXPECT_TRUE(check(valid()).empty());
  json full = valid();
  full.update({{"kind", "b"}, {"fixed", 1}, {"count", 10}, {"ratio", 0.5}, {"tags", {{{"label", "x"}}}},
               {"either", 3}, {"notzero", 2}, {"both", 7.5}});
  EXPECT_TRUE(check(full).empty());
  json null_perf = valid();
  null_perf["performance"] = nullptr;
  EXPECT_TRUE(check(null_perf).empty());
}

TEST(JsonSchemaTest, NamesTheFailingFieldPath) {
  json j = valid();
  j["performance"]["latency_us"] = "fast";
  EXPECT_EQ(only(j), "performance.latency_us: must be number, got string");
  j = valid();
  j["performance"]["latency_us"] = 0;
  EXPECT_EQ(only(j), "performance.latency_us: must be > 0, got 0");
  j = valid();
  j["tags"] = {{{"label", "a"}}, {{"label", 7}}};
  EXPECT_EQ(only(j), "tags[1].label: must be string, got integer");
  j = valid();
  j.erase("name");
  EXPECT_EQ(only(j), "name: is required");
  j = valid();
  j["performance"]["extra"] = 1;
  EXPECT_EQ(only(j), "performance.extra: is not a known field");
  j = valid();
  j["surprise"] = true;
  EXPECT_EQ(only(j), "surprise: is not a known field");
  EXPECT_EQ(only(json::array()), ": must be object, got array");
}

TEST(JsonSchemaTest, EachKeyword) {
  auto with = [](const char* key, json value) {
    json j = valid();
    j[key] = std::move(value);
    return only(j);
  };
  EXPECT_EQ(with("kind", "c"), "kind: must be one of \"a\", \"b\", got \"c\"");
  EXPECT_EQ(with("fixed", 2), "fixed: must be 1, got 2");
  EXPECT_EQ(with("count", 1.5), "count: must be integer, got number");
  EXPECT_TRUE(check([] { json j = valid(); j["count"] = 4.0; return j; }()).empty());
  EXPECT_EQ(with("count", -1), "count: must be >= 0, got -1");
  EXPECT_EQ(with("count", 11), "count: must be <= 10, got 11");
  EXPECT_EQ(with("ratio", 1), "ratio: must be < 1, got 1");
  EXPECT_EQ(with("name", "x3"), "name: must match the pattern ^v[0-9]+$, got \"x3\"");
  EXPECT_EQ(with("name", "v12345"), "name: must be at most 5 characters long");
  EXPECT_EQ(with("tags", json::array()), "tags: must have at least 1 items, has 0");
  EXPECT_EQ(with("tags", json::array({{{"label", "a"}}, {{"label", "a"}}, {{"label", "a"}}, {{"label", "a"}}})),
            "tags: must have at most 3 items, has 4");
  EXPECT_EQ(with("either", true).rfind("either: matches none of the allowed forms", 0), 0u);
  EXPECT_EQ(with("notzero", 0), "notzero: must not match {\"const\":0}");
  EXPECT_EQ(with("both", 4), "both: must be >= 5, got 4");
}

TEST(JsonSchemaTest, OneOfReportsTheBranchTheValueIsShapedFor) {
  json j = valid();
  j["performance"] = json::object();
  EXPECT_EQ(only(j), "performance.latency_us: is required");
  j["performance"] = "slow";
  EXPECT_EQ(only(j).rfind("performance: matches none of the allowed forms", 0), 0u);
  json two = {{"type", "object"}, {"properties", {{"x", {{"oneOf", {{{"type", "number"}}, {{"minimum", 0}}}}}}}}};
  auto v = JsonSchema(two).validate({{"x", 3}});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].message, "matches more than one of the allowed forms");
}

TEST(JsonSchemaTest, RefusesSchemasItCannotHonour) {
  auto code = [](json s) {
    try {
      JsonSchema{std::move(s)};
    } catch (const Error& e) {
      return e.code();
    }
    return ExitCode::ok;
  };
  EXPECT_EQ(code({{"type", "object"}, {"patternProperties", json::object()}}), ExitCode::schema_invalid);
  EXPECT_EQ(code({{"$ref", "#/$defs/missing"}}), ExitCode::schema_invalid);
  EXPECT_EQ(code({{"$ref", "other.json"}}), ExitCode::schema_invalid);
  EXPECT_EQ(code({{"pattern", "(unclosed"}}), ExitCode::schema_invalid);
  EXPECT_EQ(code({{"oneOf", json::array()}}), ExitCode::schema_invalid);
  EXPECT_EQ(code({{"title", "annotations are fine"}, {"description", "x"}, {"type", "null"}}), ExitCode::ok);
  // "x-...": kgo's own annotations (schemas/harness/'s x-kgo-by-command, x-kgo-meanings); any other unknown
  // keyword still fails, so a misspelt assertion is never silently ignored.
  EXPECT_EQ(code({{"x-kgo-by-command", {{"bench", 600}}}, {"type", "number"}}), ExitCode::ok);
  EXPECT_EQ(code({{"kgo-by-command", {{"bench", 600}}}, {"type", "number"}}), ExitCode::schema_invalid);
  EXPECT_EQ(code({{"type", "object"}, {"properties", {{"a", {{"x-note", 1}, {"minimun", 0}}}}}}), ExitCode::schema_invalid);
}

TEST(JsonSchemaTest, ValidateOrThrowNamesFieldAndCountsTheRest) {
  json j = valid();
  j["performance"]["latency_us"] = -1;
  j["count"] = "many";
  try {
    JsonSchema(k_schema).validate_or_throw(j, "record v3 refused");
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::schema_invalid);
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind("record v3 refused: field '", 0), 0u) << msg;
    EXPECT_NE(msg.find("(and 1 more problem)"), std::string::npos) << msg;
  }
}

TEST(JsonSchemaTest, IterationSchemaLoadsAndChecksRecords) {
  const JsonSchema& s = iteration_schema();
  json rec = new_record(3);
  EXPECT_TRUE(s.validate(rec).empty());
  rec["timestamp"] = "yesterday";
  ASSERT_FALSE(s.validate(rec).empty());
  EXPECT_EQ(s.validate(rec)[0].path, "timestamp");
  rec = new_record(3);
  rec["profile_evidence"]["bottleneck_type"] = "memory";
  EXPECT_EQ(s.validate(rec).at(0).path, "profile_evidence.bottleneck_type");
  rec = new_record(3);
  rec["profile_evidence"]["evidence_chain"] = "ncu: low dram -> scalar loads -> vectorize";
  EXPECT_TRUE(s.validate(rec).empty());
  rec["profile_evidence"]["evidence_chain"] = json::array({{{"evidence", "e"}, {"inference", ""}, {"action", "a"}}});
  EXPECT_EQ(s.validate(rec).at(0).path, "profile_evidence.evidence_chain[0].inference");
}

}  // namespace kgo::core
