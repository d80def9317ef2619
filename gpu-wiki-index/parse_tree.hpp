#pragma once
// Internal to gpu-wiki-index: structured documents (JSON in any schema, YAML) as one tree with
// line numbers, and the reader that finds product records and their figures in it.
#include <string>
#include <utility>
#include <vector>

#include "gpu-wiki-index/parse.hpp"

namespace kgo::wiki {

struct TreeNode {
  enum class Kind { map, list, scalar, null } kind = Kind::null;
  std::string text;    // a scalar as written (quotes removed)
  bool quoted = false; // a string scalar, not a number
  int line = 0;
  std::vector<std::pair<std::string, TreeNode>> items;  // map entries; list items have key ""
};

// The documents of a YAML text (block style; flow [..] / {..} of scalars; comments; block
// scalars as text). Throws std::runtime_error naming the line on what it cannot read.
std::vector<TreeNode> parse_yaml_tree(std::string_view text);

// Records in a tree, whatever its schema: a mapping with a product key ("product", "gpu",
// "model", "name", ...) naming a product, or a mapping keyed by product names, scopes what is
// beneath it. A figure's label is its key path ("memory" / "bandwidth_tbps"), its unit the
// value's own, else a unit suffix of a key on the path ("_tbps", "_kb"), else a sibling "unit".
// Keys that name no canonical metric are skipped; a spec-looking string under such a key is an
// issue. `kind: measured` (or type) marks measured records.
void tree_facts(FileIndex& out, const std::string& rel, const TreeNode& root);

// "register_file_kb_per_sm" -> {"register file per sm", "KB"} (words, and a unit suffix).
std::pair<std::string, std::string> key_label(const std::string& key);

}  // namespace kgo::wiki
