#pragma once
// Reference answers for agents from kgo's own data, nothing run: an op from the op catalog, a kernel
// template from templates/ops/, a Triton syntax topic from templates/triton/syntax.md. They back
// `kgo guide op|template|triton` and the MCP tools get_torch_op_info, get_kernel_template and
// get_triton_syntax.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace kgo::harness {

// The catalog entry of `op` (name or alias) with its dtypes, op-mode entry and reference file.
nlohmann::json op_guide(const std::string& op);

// One template variant of `op` (v1..v4 or baseline|tiling|coalesced|optimized, default v1), or the
// generic skeleton filled in for an op without templates of its own.
nlohmann::json template_guide(const std::string& op, const std::optional<std::string>& variant);

// One topic of the Triton syntax reference; without a topic, the list of topics.
nlohmann::json triton_guide(const std::optional<std::string>& topic);

}  // namespace kgo::harness
