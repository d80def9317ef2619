// MCP requests other than tools/call: the handshake, server/discover, tools/list and resources
// (a workspace's README sections and its iteration records, read-only).
#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <regex>

#include "mcp/mcp.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/markdown.hpp"
#include "core/memory.hpp"
#include "core/resources.hpp"
#include "core/workspace.hpp"

namespace kgo::mcp {

namespace {

namespace fs = std::filesystem;

// Newest first; the first one a client asks for that is listed here is used.
const std::vector<std::string> k_versions = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};
const char* k_readme_prefix = "kgo://readme/";
const char* k_record_prefix = "kgo://memory/";

const char* k_instructions =
    "kgo keeps GPU kernel optimization honest: cited hardware specs, roofline targets, a correctness gate "
    "and timing you cannot game. Call `next` first and whenever unsure: it names the exact tool to run. "
    "Edit only the workspace kernel; `propose` is the only way an iteration is accepted.";

json capabilities() { return {{"tools", {{"listChanged", false}}}, {"resources", {{"listChanged", false}}}}; }

json server_info() { return {{"name", "kgo"}, {"version", core::kgo_version()}}; }

const char* k_schema_prefix = "kgo://schemas/";

// The server's --workspace, else the workspace the latest tool call named, else the server's cwd.
std::optional<fs::path> workspace(const ServerOptions& o, const std::optional<fs::path>& recent) {
  try {
    return core::find_workspace(o.workspace ? o.workspace : recent);
  } catch (const Error&) {
    return std::nullopt;
  }
}

// "Stop Conditions" -> "stop-conditions": a URI segment without spaces.
std::string slug(const std::string& title) {
  std::string out;
  for (char c : title) {
    if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::vector<std::string> readme_sections(const std::string& md) {
  std::vector<std::string> out;
  static const std::regex heading(R"(^## +(.+?)\s*$)");
  std::istringstream in(md);
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_match(line, m, heading)) out.push_back(m[1]);
  }
  return out;
}

json list_resources(const ServerOptions& o, const std::optional<fs::path>& recent) {
  json list = json::array();
  std::set<std::string> files;
  for (const Tool& t : tools()) files.insert(t.output_file);
  for (const auto& f : files) {
    list.push_back({{"uri", k_schema_prefix + f}, {"name", "schema " + f}, {"mimeType", "application/schema+json"},
                    {"description", "The whole output schema (tools/list carries its top level)"}});
  }
  auto ws = workspace(o, recent);
  if (!ws) return {{"resources", list}};
  std::string md = core::try_read_file(*ws / "README.md").value_or("");
  for (const auto& s : readme_sections(md)) {
    list.push_back({{"uri", k_readme_prefix + slug(s)}, {"name", "README: " + s}, {"mimeType", "text/markdown"}});
  }
  for (int n : core::record_versions(*ws)) {
    std::string v = core::version_name(n);
    list.push_back({{"uri", k_record_prefix + v}, {"name", "record " + v}, {"mimeType", "application/json"}});
  }
  return {{"resources", list}};
}

json read_resource(const json& params, const ServerOptions& o, const std::optional<fs::path>& recent) {
  std::string uri = params.value("uri", "");
  if (uri.rfind(k_schema_prefix, 0) == 0) {
    std::string file = uri.substr(std::string(k_schema_prefix).size());
    bool served = std::any_of(tools().begin(), tools().end(), [&](const Tool& t) { return t.output_file == file; });
    if (!served) throw Error("unknown schema '" + uri + "'; resources/list names them", ExitCode::usage);
    return {{"contents", json::array({{{"uri", uri}, {"mimeType", "application/schema+json"},
                                       {"text", bundled_schema(file).dump()}}})}};
  }
  auto ws = workspace(o, recent);
  if (!ws) {
    throw Error("no kgo workspace: call a tool with its `workspace` argument first (or start the server in one)",
                ExitCode::usage);
  }
  std::string text;
  std::string mime = "text/markdown";
  if (uri.rfind(k_readme_prefix, 0) == 0) {
    std::string md = core::read_file(*ws / "README.md");
    std::string wanted = uri.substr(std::string(k_readme_prefix).size());
    std::optional<std::string> body;
    for (const auto& s : readme_sections(md)) {
      if (slug(s) == wanted || s == wanted) body = core::section_body(md, s);
    }
    if (!body) throw Error("the README has no section '" + uri + "'; resources/list names them", ExitCode::usage);
    text = *body;
  } else if (uri.rfind(k_record_prefix, 0) == 0) {
    int n = core::parse_version(uri.substr(std::string(k_record_prefix).size()));
    text = core::read_record(*ws, n, true).dump();
    mime = "application/json";
  } else {
    throw Error("unknown resource '" + uri + "'; resources/list names them", ExitCode::usage);
  }
  return {{"contents", json::array({{{"uri", uri}, {"mimeType", mime}, {"text", text}}})}};
}

json list_tools() {
  json list = json::array();
  for (const Tool& t : tools()) {
    list.push_back({{"name", t.name}, {"description", t.description}, {"inputSchema", t.input_schema},
                    {"outputSchema", t.output_schema}});
  }
  return {{"tools", list}};
}

}  // namespace

json handle_request(const std::string& method, const json& params, const ServerOptions& opts,
                    const std::optional<fs::path>& recent) {
  if (method == "initialize") {
    std::string asked = params.value("protocolVersion", "");
    bool known = std::find(k_versions.begin(), k_versions.end(), asked) != k_versions.end();
    return {{"protocolVersion", known ? asked : k_versions.front()}, {"capabilities", capabilities()},
            {"serverInfo", server_info()}, {"instructions", k_instructions}};
  }
  if (method == "server/discover") {
    // kgo speaks the initialize-handshake revisions; a newer client reads this and falls back.
    return {{"supportedVersions", k_versions}, {"capabilities", capabilities()}, {"serverInfo", server_info()},
            {"instructions", k_instructions}, {"cacheScope", "public"}, {"ttlMs", 0}, {"resultType", "complete"}};
  }
  if (method == "ping") return json::object();
  if (method == "tools/list") return list_tools();
  if (method == "resources/list") return list_resources(opts, recent);
  if (method == "resources/templates/list") return {{"resourceTemplates", json::array()}};
  if (method == "resources/read") return read_resource(params, opts, recent);
  if (method == "prompts/list") return {{"prompts", json::array()}};
  throw Error("method not found: " + method, ExitCode::failure);
}

}  // namespace kgo::mcp
