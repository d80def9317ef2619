#pragma once
// Citations `<gpu-wiki>/<path>:L<line>` or `<gpu-wiki>/<path>:<section>` and spec statements
// `<metric text>: <value> <unit> <- <citation>` (the seed's format). Parsing then formatting
// gives back the same text; syntax errors throw Error(citation_rejected) or Error(usage).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kgo::specs {

inline constexpr std::string_view k_wiki_prefix = "<gpu-wiki>/";

struct Citation {
  std::string path;     // wiki-relative as written, e.g. "docs/hardware-specs/x.md"
  int line = 0;         // > 0 for the `:L<line>` form
  std::string section;  // heading text for the `:<section>` form (line == 0)

  bool operator==(const Citation&) const = default;
};

// Parses one whole citation. `L<digits>` (1-9 digits, no leading zero) is a line; any other
// non-empty tail is a section (surrounding whitespace dropped). The path runs up to the first ':'
// and may hold inner spaces, never control characters.
Citation parse_citation(std::string_view text);
std::string format_citation(const Citation& c);

// Lexical safety of a wiki-relative path: throws Error(citation_rejected) for absolute paths,
// '..' or '.' parts, empty parts, backslashes and control characters, naming which.
void check_relative_path(const std::string& path);

struct SpecStatement {
  std::string metric_text;  // "H20 HBM3 bandwidth"
  std::string value_text;   // "4.0", "1,978.9", "~148"
  double value = 0;
  std::string unit;         // "TB/s"; empty for plain counts
  Citation citation;
};

// Parses `<metric text>: <value> [<unit>] <- <citation>`; throws Error(usage) naming the part
// that is malformed (Error(citation_rejected) for the citation part).
SpecStatement parse_statement(std::string_view text);
std::string format_statement(const SpecStatement& s);

// A citation found inside free text (a README line, a JSON string).
struct CitationMatch {
  size_t begin = 0, end = 0;          // byte range of the citation in the text
  std::optional<Citation> citation;   // nullopt when malformed (see error)
  std::string error;
  // The `<value> <unit>` written right before " <- " when there is one, and the text before it.
  std::optional<double> claimed_value;
  std::string claimed_value_text;
  std::string claimed_unit;
  std::string metric_text;
};

// Every `<gpu-wiki>/...` occurrence in `text`. In free text a path ends at whitespace (unless a
// .md/.json name with spaces runs up to the ':'), and a section runs to the end of the line, a
// backtick, a '|' or a '"', with trailing ".,;" dropped.
std::vector<CitationMatch> find_citations(std::string_view text);

}  // namespace kgo::specs
