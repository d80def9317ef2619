#pragma once
// Parsing one wiki file into facts, products and issues. Each file parses on its own (no
// knowledge of other files), so the on-disk cache can re-parse only the files that changed.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpu-wiki-index/index.hpp"

namespace kgo::wiki {

struct ProductDecl {
  std::string name;  // canonical: vendor prefix dropped ("H100 SXM", "MI300X")
  std::string arch;  // "" when the file does not say
  int line = 0;      // where the file defines it (heading, table header or row, record key)
  std::string file;  // wiki-relative; set by parse_file
  // Named by a notes document (a table or sentence of a tutorial), not a spec sheet: a product of
  // its own only where no spec sheet defines the SKU (assemble_index maps it onto that one).
  bool notes = false;
};

struct FileIndex {
  std::vector<Fact> facts;
  std::vector<WikiIssue> issues;             // kind "unparsed"
  std::vector<ProductDecl> products;         // products the file declares
  std::vector<std::pair<std::string, std::string>> aliases;  // "## Product aliases" tables
};

// Markdown: product sections `## NVIDIA H100 SXM (sm_90, Hopper)`, front matter (`product:`,
// `arch:`, `kind: measured`), tables (metrics as rows, products as columns or rows) and
// `key: value unit` lines. `rel` is the wiki-relative path stored in every fact.
FileIndex parse_markdown(const std::string& rel, std::string_view text);

// JSON record files: {"product", "arch", "kind", "facts": [{"metric", "value", "unit", ...}]},
// or a list of such records, or {"records": [...]}. Files without "facts" are not records.
FileIndex parse_json_records(const std::string& rel, std::string_view text);

// Text dumps of device-query tools, recognised by their content wherever they sit.
enum class DumpTool { none, device_query, nvidia_smi, rocminfo };
DumpTool detect_dump(std::string_view text);
// A dump's devices as products and the figures the tool states with fixed labels (SM count, L2,
// shared memory per SM, clocks, ...); tool output that states no hardware figure is ignored.
FileIndex parse_dump(const std::string& rel, std::string_view text);

// YAML spec files: block mappings and sequences of scalars. Records are read as JSON records
// are (see parse_tree below); comments and flow collections are handled, anchors are not.
FileIndex parse_yaml(const std::string& rel, std::string_view text);

// One reader per format, chosen by the file's content and extension: markdown (.md), JSON
// (.json), YAML (.yaml/.yml) and tool dumps (any .txt/.log file, or a .md holding one in a
// code block is still markdown). Other files give an empty FileIndex.
FileIndex parse_file(const std::string& rel, std::string_view text);

// True when list_wiki_files() keeps a file of this name.
bool wiki_file_name(std::string_view name);

// A .md / .json file of a wiki (hidden folders and symlinks skipped), sorted by `rel`.
struct WikiFile {
  std::string rel;
  std::filesystem::path path;
  std::uintmax_t size = 0;
  std::int64_t mtime_ns = 0;
};
std::vector<WikiFile> list_wiki_files(const std::filesystem::path& root);

// Joins parsed files into an index: applies the declared aliases to product names, merges
// product declarations, keeps file order.
WikiIndex assemble_index(const std::filesystem::path& root, std::vector<FileIndex> files);

// How product names compare: case, '-', '_', repeated spaces and a vendor prefix do not matter.
std::string product_key(const std::string& name);

// "NVIDIA H100 SXM" -> "H100 SXM"; "AMD Instinct MI300X" -> "MI300X".
std::string canonical_product_name(std::string_view name);

// A product heading's name and arch: "NVIDIA H100 SXM (sm_90, Hopper)" -> {"H100 SXM", "Hopper"};
// nullopt for other headings ("Hopper Architecture Key Parameters (sm_90)").
std::optional<ProductDecl> product_heading(std::string_view heading);

}  // namespace kgo::wiki
