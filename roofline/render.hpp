#pragma once
// Renderers of an Analysis: the three README sections kgo roofline owns (every hardware number with
// its `<- <gpu-wiki>/path:line` citation on the same line), roofline.json, the CLI text output, and
// the `--explain` document.
#include <string>

#include <nlohmann/json.hpp>

#include "roofline/analysis.hpp"

namespace kgo::roofline {

// Bodies (without the heading) of README "## Roofline Analysis", "## Stop Conditions" and
// "## ISA Optimization Targets".
std::string roofline_section(const Analysis& a);
std::string stop_conditions_section(const Analysis& a);
std::string isa_section(const std::string& arch, const Analysis& a);

// roofline.json (schemas/roofline.schema.json), without the envelope fields the caller adds.
nlohmann::json to_json(const Analysis& a);

// Human output of `kgo roofline`: per-shape summary, targets and measured results.
std::string render_text(const Analysis& a);

// `kgo roofline --explain`: the catalog, counting conventions and every definition used.
nlohmann::json explain_json();
std::string explain_text();

}  // namespace kgo::roofline
