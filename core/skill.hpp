#pragma once
// `kgo skill install|uninstall`: the kgo skill, its MCP server entry and its hooks in an agent
// client's configuration under a home directory. Install records every file it touches (bytes before
// and after) in a manifest; uninstall restores exactly that, or removes only kgo's entries from a
// config the client has rewritten since.
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace kgo::core {

enum class SkillClient { claude, codex };

struct SkillInstallOptions {
  SkillClient client = SkillClient::claude;
  std::filesystem::path home;      // the user's home ($HOME)
  std::filesystem::path kgo_exe;   // absolute path of the kgo binary the configs will run
  std::string skill_md;            // templates/skill/SKILL.md
  bool hooks = false;              // PreToolUse + Stop hooks running `kgo skill hook`
  bool mcp = false;                // register `kgo mcp` in the client's MCP config
};

struct SkillChange {
  std::string path;    // absolute file path
  std::string action;  // created, updated, removed, restored, left (changed by someone else)
};

struct SkillResult {
  std::string client;  // claude, codex
  std::string state;   // installed, unchanged, uninstalled, not_installed
  std::string manifest;
  std::vector<SkillChange> changes;
  std::vector<std::string> notes;
};

std::string client_name(SkillClient c);
// The client's directory under home (~/.claude, ~/.codex).
std::filesystem::path client_dir(SkillClient c, const std::filesystem::path& home);

SkillResult skill_install(const SkillInstallOptions& opts);
SkillResult skill_uninstall(SkillClient client, const std::filesystem::path& home);

}  // namespace kgo::core
