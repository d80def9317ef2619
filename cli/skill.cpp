// `kgo skill install --claude|--codex [--hooks] [--mcp]`, `kgo skill uninstall`, and
// `kgo skill hook pre-tool|stop` (what the installed hooks run; the client's protocol: exit 2 refuses).
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <memory>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/resources.hpp"
#include "core/skill.hpp"
#include "iterate/skill_hook.hpp"

namespace kgo::cli {

namespace {

namespace fs = std::filesystem;

struct SkillOptions {
  bool claude = false, codex = false, hooks = false, mcp = false;
  std::string home;
  std::string event;
  std::string state;
  int max_refusals = 5;
};

fs::path home_of(const SkillOptions& o) {
  if (!o.home.empty()) return fs::absolute(o.home);
  const char* h = std::getenv("HOME");
  if (!h || !*h) throw Error("$HOME is not set; pass --home DIR", ExitCode::usage);
  return fs::path(h);
}

std::vector<core::SkillClient> clients(const SkillOptions& o, bool need_one) {
  std::vector<core::SkillClient> out;
  if (o.claude) out.push_back(core::SkillClient::claude);
  if (o.codex) out.push_back(core::SkillClient::codex);
  if (out.empty() && need_one) throw Error("name the client: --claude or --codex", ExitCode::usage);
  if (out.empty()) out = {core::SkillClient::claude, core::SkillClient::codex};
  return out;
}

void render(Context& ctx, const std::vector<core::SkillResult>& results) {
  nlohmann::json arr = nlohmann::json::array();
  std::string text;
  for (const auto& r : results) {
    nlohmann::json changes = nlohmann::json::array();
    text += r.client + ": " + r.state + " (manifest " + r.manifest + ")\n";
    for (const auto& c : r.changes) {
      changes.push_back({{"path", c.path}, {"action", c.action}});
      text += "  " + c.action + " " + c.path + "\n";
    }
    for (const auto& n : r.notes) text += "  note: " + n + "\n";
    arr.push_back({{"client", r.client}, {"state", r.state}, {"manifest", r.manifest}, {"changes", changes}, {"notes", r.notes}});
  }
  emit(ctx, {{"clients", arr}}, text);
}

}  // namespace

void register_skill(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<SkillOptions>();
  CLI::App* skill = app.add_subcommand("skill", "Install the kgo skill, MCP server and hooks into Claude Code or Codex");
  skill->require_subcommand(1);
  CLI::App* inst = skill->add_subcommand("install", "Install the skill (and with --mcp the MCP server, with --hooks the hooks)");
  CLI::App* uninst = skill->add_subcommand("uninstall", "Remove exactly what `kgo skill install` added");
  for (CLI::App* sub : {inst, uninst}) {
    sub->add_flag("--claude", o->claude, "Claude Code (~/.claude, ~/.claude.json)");
    sub->add_flag("--codex", o->codex, "Codex (~/.codex)");
    sub->add_option("--home", o->home, "Home directory to install into (default: $HOME)");
  }
  inst->add_flag("--hooks", o->hooks, "Hooks refusing edits of memory/, .kgo/, specs.json and stops before the Stop Conditions");
  inst->add_flag("--mcp", o->mcp, "Register `kgo mcp` in the client's MCP configuration");
  inst->callback([o, &ctx] {
    std::vector<core::SkillResult> results;
    for (auto c : clients(*o, true)) {
      core::SkillInstallOptions io;
      io.client = c;
      io.home = home_of(*o);
      io.kgo_exe = fs::read_symlink("/proc/self/exe");
      io.skill_md = core::read_file(core::data_file("templates/skill/SKILL.md"));
      io.hooks = o->hooks;
      io.mcp = o->mcp;
      results.push_back(core::skill_install(io));
    }
    render(ctx, results);
  });
  uninst->callback([o, &ctx] {
    std::vector<core::SkillResult> results;
    for (auto c : clients(*o, false)) results.push_back(core::skill_uninstall(c, home_of(*o)));
    render(ctx, results);
  });
  CLI::App* hook = skill->add_subcommand("hook", "Run by the installed hooks: the client's hook JSON on stdin; exit 2 refuses");
  hook->add_option("event", o->event, "pre-tool or stop")->required()->check(CLI::IsMember({"pre-tool", "stop"}));
  hook->add_option("--state", o->state, "Stop: file counting refusals per session");
  hook->add_option("--max-refusals", o->max_refusals, "Stop: refusals per session before a stop is let through")
      ->capture_default_str();
  hook->callback([o, &ctx] {
    std::string in((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    nlohmann::json payload = nlohmann::json::parse(in, nullptr, false);
    if (payload.is_discarded()) throw Error("kgo skill hook: stdin is not the client's hook JSON", ExitCode::usage);
    std::optional<fs::path> state;
    if (!o->state.empty()) state = fs::path(o->state);
    iterate::HookDecision d = o->event == "pre-tool" ? iterate::pre_tool_hook(payload)
                                                     : iterate::stop_hook(payload, o->max_refusals, state);
    if (d.allow) return;
    std::cout << nlohmann::json{{"decision", "block"}, {"reason", d.reason}}.dump() << "\n";
    std::cerr << d.reason << "\n";
    ctx.exit_code = 2;  // the hook protocol of Claude Code and Codex: exit 2 blocks, stderr is the reason
  });
}

}  // namespace kgo::cli
