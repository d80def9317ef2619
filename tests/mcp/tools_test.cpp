// The MCP tool table against the options its commands declare (mcp::build_tools). `kgo mcp` builds the same
// table from kgo's real command tree at start-up (tests/cli/test_mcp.py checks the result against `--help`).
#include "mcp/mcp.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "core/error.hpp"
#include "tests/test_util.hpp"

namespace kgo::mcp {
namespace {

using kgo::test::code_of;

// Every option the table names, declared by its command with `type` (a flag as a boolean).
CommandOptions declared_as_named() {
  CommandOptions out;
  for (const ToolArguments& t : tool_arguments()) {
    auto& opts = out[t.command];
    for (const std::string& a : t.args) {
      bool flag = a.rfind("--", 0) == 0;
      std::string name = flag ? a.substr(2) : a;
      std::replace(name.begin(), name.end(), '-', '_');
      bool seen = std::any_of(opts.begin(), opts.end(), [&](const CommandOption& o) { return o.name == name; });
      if (!seen) opts.push_back({name, flag ? a : "", "string", "help of " + a, false});
    }
  }
  return out;
}

const Tool& tool(const std::vector<Tool>& all, const std::string& name) {
  for (const Tool& t : all) {
    if (t.name == name) return t;
  }
  throw std::runtime_error("no tool " + name);
}

TEST(McpTools, ArgumentsTakeTypeHelpAndRequiredFromTheCommandsOptions) {
  CommandOptions c = declared_as_named();
  for (auto& o : c["wiki index"]) {
    if (o.flag == "--limit") o = {"limit", "--limit", "integer", "At most N facts", false};
    if (o.flag == "--detail") o.type = "boolean";
  }
  for (auto& o : c["wiki lookup"]) o.required = o.flag == "--platform";
  std::vector<Tool> all = build_tools(c);
  const json& index = tool(all, "wiki_index").input_schema["properties"];
  EXPECT_EQ(index["limit"]["type"], "integer");
  EXPECT_EQ(index["limit"]["description"], "At most N facts");
  EXPECT_EQ(index["detail"]["type"], "boolean");
  EXPECT_EQ(tool(all, "wiki_lookup").input_schema["required"], json::array({"platform"}));
  ServerOptions so;
  std::vector<std::string> argv = tool(all, "wiki_index").argv({{"limit", 3}, {"detail", true}}, so);
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--limit=3"), argv.end());
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--detail"), argv.end());
  EXPECT_EQ(code_of([&] { tool(all, "wiki_index").argv({{"limit", "3"}}, so); }), ExitCode::usage);
}

TEST(McpTools, AToolNamingAnOptionItsCommandLacksIsRefusedByName) {
  CommandOptions c = declared_as_named();
  auto& opts = c["memory read"];
  opts.erase(std::remove_if(opts.begin(), opts.end(), [](const CommandOption& o) { return o.flag == "--field"; }),
             opts.end());
  std::string message;
  EXPECT_EQ(code_of([&] { build_tools(c); }, &message), ExitCode::internal);
  EXPECT_NE(message.find("memory_read"), std::string::npos) << message;
  EXPECT_NE(message.find("--field"), std::string::npos) << message;
  c.erase("memory read");
  EXPECT_EQ(code_of([&] { build_tools(c); }, &message), ExitCode::internal);
  EXPECT_NE(message.find("kgo memory read"), std::string::npos) << message;
}

TEST(McpTools, TheSeedsAliasOfARequiredOpKeepsOpOutOfRequired) {
  CommandOptions c = declared_as_named();
  for (auto& o : c["guide op"]) o.required = o.name == "op";
  std::vector<Tool> all = build_tools(c);
  const json& s = tool(all, "get_torch_op_info").input_schema;
  EXPECT_TRUE(s["properties"].contains("op_name"));
  EXPECT_FALSE(s.contains("required")) << s.dump();
}

}  // namespace
}  // namespace kgo::mcp
