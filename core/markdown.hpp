#pragma once
// Markdown helpers shared by every command that writes a workspace README:
// `{{key}}` template rendering and section-aware replacement (user edits elsewhere survive).
#include <map>
#include <optional>
#include <string>

namespace kgo::core {

// Replaces every `{{key}}` with vars[key]; unknown keys become "TBD".
std::string render_template(const std::string& text, const std::map<std::string, std::string>& vars);

// The body of the `## <heading>` section (text after the heading line up to the next heading of
// the same or higher level), or nullopt when the section is absent.
std::optional<std::string> section_body(const std::string& markdown, const std::string& heading);

// Returns `markdown` with the body of `## <heading>` replaced by `body`. A missing section is
// appended at the end. The heading line itself and all other sections are kept byte for byte.
std::string replace_section(const std::string& markdown, const std::string& heading,
                            const std::string& body);

}  // namespace kgo::core
