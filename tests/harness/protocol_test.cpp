#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/files.hpp"
#include "core/harness_protocol.hpp"
#include "harness/bench.hpp"
#include "harness/check.hpp"
#include "harness/client.hpp"
#include "harness/target.hpp"

namespace kgo::harness {

namespace {

nlohmann::json schema(const char* name) {
  return nlohmann::json::parse(core::read_file(std::filesystem::path(KGO_SOURCE_DIR) / "schemas" / "harness" / name));
}

}  // namespace

// kgo's defaults are the schema's (schemas/harness/request.schema.json), read at run time here: a default written
// back into C++ as a number of its own fails.
TEST(ProtocolTest, KgosRequestDefaultsAreTheSchemas) {
  nlohmann::json req = schema("request.schema.json")["properties"];
  CheckSettings check;
  EXPECT_EQ(check.trials, req["trials"]["default"].get<int>());
  EXPECT_TRUE(req["seed"]["default"].is_null());   // drawn by the harness for each request
  EXPECT_FALSE(check.seed.has_value());
  EXPECT_EQ(check.edge_shapes, req["edge_shapes"]["default"].get<bool>());
  EXPECT_DOUBLE_EQ(check.case_timeout_s, req["case_timeout_s"]["default"].get<double>());
  EXPECT_DOUBLE_EQ(check.total_timeout_s, req["total_timeout_s"]["default"].get<double>());
  BenchSettings bench;
  nlohmann::json b = req["bench"]["properties"];
  EXPECT_EQ(bench.runs, b["runs"]["default"].get<int>());
  EXPECT_DOUBLE_EQ(bench.precision_pct, b["precision_pct"]["default"].get<double>());
  EXPECT_EQ(bench.max_runs, b["max_runs"]["default"].get<int>());
  EXPECT_EQ(bench.graph, b["graph"]["default"].get<std::string>());
  EXPECT_EQ(bench.flush_l2, b["flush_l2"]["default"].get<bool>());
  EXPECT_DOUBLE_EQ(bench.size_timeout_s, req["case_timeout_s"]["x-kgo-by-command"]["bench"].get<double>());
  EXPECT_DOUBLE_EQ(bench.total_timeout_s, req["total_timeout_s"]["x-kgo-by-command"]["bench"].get<double>());
  EXPECT_EQ(nlohmann::json(seed_sizes()), req["shapes"]["x-kgo-by-command"]["bench"]);
}

TEST(ProtocolTest, KgosNamesAreTheSchemas) {
  nlohmann::json req = schema("request.schema.json")["properties"];
  nlohmann::json res = schema("result.schema.json")["properties"];
  EXPECT_EQ(protocol::kVersion, req["protocol"]["const"].get<int>());
  EXPECT_EQ(protocol::kVersion, res["protocol"]["const"].get<int>());
  EXPECT_EQ(nlohmann::json(contract_names()), req["contract"]["enum"]);
  for (const auto& v : res["verdict"]["enum"]) EXPECT_TRUE(is_verdict(v.get<std::string>())) << v;
  EXPECT_EQ(protocol::kVerdicts.size(), res["verdict"]["enum"].size());
  EXPECT_FALSE(is_verdict("SKIPPED"));  // a case status, never a run's verdict
  EXPECT_FALSE(is_verdict("pass"));
}

TEST(ProtocolTest, EveryRequestCarriesTheCudaToolsKgoResolved) {
  const nlohmann::json& tools = cuda_tools();
  ASSERT_TRUE(tools.is_object());
  for (const char* name : {"nvcc", "ncu"}) {
    ASSERT_TRUE(tools.contains(name)) << name;
    EXPECT_TRUE(tools[name].is_null() || tools[name].is_string()) << tools;
  }
  EXPECT_EQ(&cuda_tools(), &tools);  // resolved once per process
}

}  // namespace kgo::harness
