#include "iterate/skill_hook.hpp"

#include <regex>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/workspace.hpp"
#include "iterate/next.hpp"

namespace kgo::iterate {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* k_protected = "memory/, .kgo/ and specs.json are written by kgo only";

fs::path base_dir(const json& payload) {
  std::error_code ec;
  if (payload.contains("cwd") && payload["cwd"].is_string()) return fs::path(payload["cwd"].get<std::string>());
  return fs::current_path(ec);
}

// The kgo workspace holding `p` (a directory with kgo.json), if any.
std::optional<fs::path> workspace_of(fs::path p) {
  std::error_code ec;
  for (fs::path dir = p.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (fs::exists(dir / "kgo.json", ec)) return dir;
    if (dir == dir.root_path()) break;
  }
  return std::nullopt;
}

bool protected_path(const fs::path& file) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(file, ec);
  if (ec) p = file.lexically_normal();
  auto ws = workspace_of(p);
  if (!ws) return false;
  std::string rel = p.lexically_relative(*ws).generic_string();
  return rel == "specs.json" || rel == "memory" || rel == ".kgo" || rel.rfind("memory/", 0) == 0 ||
         rel.rfind(".kgo/", 0) == 0;
}

// A shell command or patch text naming a protected path; a plain `kgo ...` command line is kgo itself.
bool protected_text(const std::string& text) {
  static const std::regex plain_kgo(R"(^\s*(\S*/)?kgo\s[^;&|<>`$()\n]*$)");
  static const std::regex names(R"((^|[\s'"/=<>:])(memory/|memory\s*$|\.kgo/|\.kgo\s*$|specs\.json))");
  if (std::regex_search(text, plain_kgo)) return false;
  return std::regex_search(text, names);
}

void scan(const json& v, const std::string& key, const fs::path& base, std::vector<std::string>& hits) {
  if (v.is_object()) {
    for (const auto& [k, x] : v.items()) scan(x, k, base, hits);
  } else if (v.is_array()) {
    for (const auto& x : v) scan(x, key, base, hits);
  } else if (v.is_string()) {
    std::string s = v.get<std::string>();
    bool path_key = key == "file_path" || key == "notebook_path" || key == "path";
    if (path_key ? protected_path(fs::path(s).is_absolute() ? fs::path(s) : base / s) : protected_text(s)) {
      hits.push_back(s.size() > 120 ? s.substr(0, 120) + "..." : s);
    }
  }
}

}  // namespace

HookDecision pre_tool_hook(const json& payload) {
  if (!payload.is_object() || !payload.contains("tool_input")) return {};
  std::vector<std::string> hits;
  scan(payload["tool_input"], "", base_dir(payload), hits);
  if (hits.empty()) return {};
  return {false, std::string("kgo: refused: ") + k_protected + " (" + hits.front() +
                     "). Use kgo: `kgo memory read|mask|unmask`, `kgo spec add|auto`, `kgo propose` (or the MCP tools)."};
}

HookDecision stop_hook(const json& payload, int max_refusals, const std::optional<fs::path>& state) {
  std::optional<fs::path> ws;
  try {
    ws = core::find_workspace(std::nullopt, base_dir(payload));
  } catch (const Error&) {
    return {};
  }
  NextStep s = next_step(ws);
  if (terminal(s)) return {};
  std::string session = payload.value("session_id", std::string("-"));
  json counts = json::object();
  if (state) {
    if (auto text = core::try_read_file(*state)) {
      counts = json::parse(*text, nullptr, false);
      if (!counts.is_object()) counts = json::object();
    }
  }
  int used = counts.value(session, 0);
  if (used >= max_refusals) return {};
  if (state) {
    counts[session] = used + 1;
    core::write_file_atomic(*state, counts.dump() + "\n");
  }
  return {false, "kgo: the Stop Conditions of " + ws->string() + " are not met (" + s.why + "). Next: " + s.command +
                     " (tool " + s.tool + "). Refusal " + std::to_string(used + 1) + " of " +
                     std::to_string(max_refusals) + " this session."};
}

}  // namespace kgo::iterate
