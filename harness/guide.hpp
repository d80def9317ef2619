#pragma once
// Reference answers for agents from kgo's own data, no kernel run: an op from the op catalog (with the
// harness's op table for its signature and inputs), a kernel template from templates/ops/, a Triton syntax
// topic from templates/triton/syntax.md. They back `kgo guide op|template|triton` and the MCP tools
// get_torch_op_info, get_kernel_template and get_triton_syntax.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/python.hpp"

namespace kgo::harness {

// The catalog entry of `op` (name or alias) with its dtypes, op-mode entry, reference file and, from the
// harness's op table (one `catalog` request through `py`), the entry's signature and inputs: an op with
// generic templates has no reference file of its own, so these are what tells the agent its arguments.
nlohmann::json op_guide(const std::string& op, const PythonInterpreter& py);

// One template variant of `op` (v1..v4 or baseline|tiling|coalesced|optimized, default v1), or the
// generic skeleton filled in for an op without templates of its own.
nlohmann::json template_guide(const std::string& op, const std::optional<std::string>& variant);

// One topic of the Triton syntax reference; without a topic, the list of topics.
nlohmann::json triton_guide(const std::optional<std::string>& topic);

}  // namespace kgo::harness
