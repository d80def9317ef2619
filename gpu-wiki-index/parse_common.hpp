#pragma once
// Internal to gpu-wiki-index: what the markdown and JSON parsers share.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpu-wiki-index/parse.hpp"

namespace kgo::wiki {

// Where a value sits: the product it is stated for, file, line, measured or datasheet.
struct FactSite {
  std::string product;
  std::string file;
  int line = 0;
  bool measured = false;
  bool notes = false;  // a tutorial / notes document, not a spec sheet
};

// Turns one (label, value cell) pair into facts (one per metric the label names), or an
// "unparsed" issue saying why not. Cells that state no value ("—", "UNKNOWN") add nothing.
void add_facts(FileIndex& out, const FactSite& site, const std::string& label,
               const std::string& cell, const std::string& default_unit, bool sparse_column);

// Adds a product defined at `line` (keeping the first line and the first non-empty arch).
void declare_product(FileIndex& out, const std::string& name, const std::string& arch, int line,
                     bool notes = false);

// True when `text` names a product other than `product` (another model, or another form
// factor of the same model): "MI300X L1 cache" or "(H100 PCIe)" inside the H100 SXM section.
bool names_other_product(const std::string& text, const std::string& product);

// True for a document that states specs of its own (a spec sheet): its path or title says so,
// front matter names its product, or a heading declares a product (`## NVIDIA H100 SXM (sm_90, Hopper)`).
// Tutorials and notes only restate products that spec sheets define.
bool spec_document(const std::string& rel, std::string_view text);

// True when a table cell looks like a product name ("H100 SXM", "MI300X", "L40S").
bool product_like(std::string_view cell);

// The sentences of a prose line, split at . ! ? ; followed by a space or the end (a decimal
// point is never followed by a space).
std::vector<std::string> sentences(std::string_view line);

// A sentence that states one figure: its words without the figure (the label, as a `label:
// value` line has one) and the figure with what follows it up to ', ', ';' or '(' (the value).
// nullopt when the sentence holds no number with a unit, more than one number, or words that
// name no metric (kernel results and ridge points name none).
struct ProseFigure {
  std::string label;
  std::string value;
};
std::optional<ProseFigure> prose_figure(std::string_view sentence);

// Every figure of a sentence that states several ("192 GB of HBM3e with 8 TB/s of bandwidth"),
// each labelled by the words between it and its neighbouring figures; numbers without a hardware
// unit ("70B", "2.4x") and figures whose words name no metric are left out. When two figures'
// words name the same metric, or a hardware figure's words name none, the sentence is refused:
// no figures, `refused` says why.
struct ProseFigures {
  std::vector<ProseFigure> figures;
  std::string refused;
};
ProseFigures prose_figures(std::string_view sentence);

// Products of a vendor family a text names ("B200's 8 TB/s" -> "B200", "the H100 SXM" ->
// "H100 SXM", "GeForce RTX 4090" -> "RTX 4090"), each once, in order. `others` counts the model
// tokens that are no such product (a die "GH100", a benchmark "AIME25").
std::vector<std::string> product_mentions(const std::string& text, size_t* others = nullptr);

// "tensor", "cuda" or "" for a label and its metric.
std::string core_of(const std::string& label, const std::string& metric);

}  // namespace kgo::wiki
