#include "specs/json_walk.hpp"

#include <gtest/gtest.h>

namespace kgo::specs {
namespace {

TEST(JsonWalk, PathsLinesAndEscapes) {
  std::vector<std::string> seen;
  bool ok = walk_json("{\n \"a\": [1,\n  {\"b\": \"x\\\"y\\n<gpu-wiki>\"}],\n \"c\": null\n}", [&](const JsonValue& v) {
    std::string path;
    for (const auto& k : v.path) path += "/" + k;
    seen.push_back(path + "@" + std::to_string(v.line) + "=" + v.text + (v.is_string ? "(s)" : ""));
  });
  EXPECT_TRUE(ok);
  EXPECT_EQ(seen, (std::vector<std::string>{"/a@2=1", "/a/b@3=x\"y\n<gpu-wiki>(s)", "/c@4=null"}));
}

TEST(JsonWalk, InvalidDocumentsAreRefused) {
  auto nothing = [](const JsonValue&) {};
  for (std::string bad : std::vector<std::string>{"", "{", "{\"a\" 1}", "[1,]", "{\"a\": tru}", "\"open", "{} {}", "[\"\\q\"]",
                          std::string(500, '[')}) {
    EXPECT_FALSE(walk_json(bad, nothing)) << bad;
  }
  EXPECT_TRUE(walk_json("[]", nothing));
  EXPECT_TRUE(walk_json(" {\"a\": -1.5e3} ", nothing));
}

}  // namespace
}  // namespace kgo::specs
