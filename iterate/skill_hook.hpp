#pragma once
// The hooks `kgo skill install --hooks` puts in an agent client: decisions on the client's hook
// payload (JSON on stdin). pre-tool refuses an edit of a workspace's memory/, .kgo/ or specs.json;
// stop refuses to stop while `kgo next` is not done, at most `max_refusals` times per session.
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace kgo::iterate {

struct HookDecision {
  bool allow = true;
  std::string reason;  // why refused, naming the kgo command to use instead
};

HookDecision pre_tool_hook(const nlohmann::json& payload);

// `state`: a small JSON file counting refusals per session (nullopt: no limit kept).
HookDecision stop_hook(const nlohmann::json& payload, int max_refusals, const std::optional<std::filesystem::path>& state);

}  // namespace kgo::iterate
