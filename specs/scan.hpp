#pragma once
// Finds, in an archived workspace file, the hardware numbers that carry no citation and every
// `<gpu-wiki>/...` citation, each with its line.
//
// A hardware number is a number with a bandwidth unit (TB/s, GB/s, ...), a FLOP-rate unit
// (TFLOPS, TOPS, ...), a clock unit (MHz, GHz), an SM/CU count ("132 SMs"), a cache or memory
// size (KB..TB, KiB..TiB) on a line naming a cache or memory (L2, HBM, shared memory, LDS,
// VRAM, ...), a register count next to "per SM", "max", "register file" or "× 32-bit", or any
// number right after a hardware label and ':' '=' or '|' ("SM count: 132", "| L2 Cache | 50 |").
// Percentages and ratios ("85%", "2.1x") are not hardware numbers.
//
// On a line (markdown) or string value (JSON) without a citation it is uncited; on one with a
// citation it goes to beside_citations, where the audit traces it (specs/trace.hpp). It is a
// measurement, exempt, when labelled as one:
//   - markdown: the line contains "measured" or "measurement" (any case); or the table it sits
//     in has such a word in its header row; or the section it sits in (up to the next heading of
//     the same or higher level) has such a word in its heading;
//   - JSON: the value sits, at any depth, under a key named performance, correctness,
//     profile_evidence or environment; or the string itself says "measured".
#include <string>
#include <vector>

#include "specs/citation.hpp"

namespace kgo::specs {

struct NumberSite {
  int line = 0;
  std::string number;  // "3.35 TB/s", "132 SMs", "SM count: 132"
  std::string kind;    // "bandwidth", "flop_rate", "clock", "count", "size", "registers", "labelled"
  std::string text;    // the line (or JSON string), trimmed, for the report
  double value = 0;          // the number ("3.35")
  std::string value_text;    // as written ("3.35", "~148", "3.35e12")
  std::string unit;          // as written after it ("TB/s", "terabytes per second"); "" for "labelled"
  size_t begin = 0, end = 0; // byte range of number and unit in the untrimmed line
};

struct CitationSite {
  int line = 0;
  CitationMatch match;
  std::string text;
};

struct FileScan {
  std::vector<NumberSite> uncited;
  // Hardware numbers on lines (or JSON strings) that hold a citation, with `text` the whole line
  // untrimmed: each must trace to a citation on its line (specs/trace.hpp), which the audit checks.
  std::vector<NumberSite> beside_citations;
  std::vector<CitationSite> citations;
  std::string error;  // e.g. a memory record that is not valid JSON (then scanned as text)
};

// Dispatches on the extension: ".json" files by JSON value, everything else as markdown.
FileScan scan_file(const std::string& path, const std::string& text);
FileScan scan_markdown(const std::string& text);
FileScan scan_json(const std::string& text);

// Hardware numbers of one line of prose (no exemption applied).
std::vector<NumberSite> hardware_numbers(const std::string& line);

}  // namespace kgo::specs
