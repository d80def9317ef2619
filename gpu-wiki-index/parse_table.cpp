#include "gpu-wiki-index/parse_table.hpp"

#include <algorithm>
#include <cctype>

#include "core/strings.hpp"
#include "gpu-wiki-index/metrics.hpp"
#include "gpu-wiki-index/names.hpp"
#include "gpu-wiki-index/parse_common.hpp"
#include "gpu-wiki-index/units.hpp"

namespace kgo::wiki {

namespace {

bool contains_any(const std::string& s, std::initializer_list<const char*> words) {
  for (const char* w : words) {
    if (s.find(w) != std::string::npos) return true;
  }
  return false;
}

class TableParser {
 public:
  explicit TableParser(const TableSite& site) : m_site(site) {}

  enum class ColumnKind { label, value, sparse, ignored, product };

  static ColumnKind column_kind(const std::string& header) {
    std::string h = lower(plain_text(header));
    if (contains_any(h, {"sparse", "sparsity"}) && h.find("without") == std::string::npos) return ColumnKind::sparse;
    if (contains_any(h, {"note", "use case", "impact", "description", "comment", "source", "reference",
                         "remark", "where", "detail", "citation", "link", "evidence", "meaning"})) {
      return ColumnKind::ignored;
    }
    return ColumnKind::value;
  }

  static bool product_column(const std::string& header) {
    std::string h = lower(plain_text(header));
    return h == "gpu" || h == "product" || h == "model" || h == "accelerator" || h == "device" ||
           h == "platform" || h == "gpu model";
  }

  void run(const Table& tab) {
    const auto& h = tab.header;
    if (m_site.alias_section && m_site.file == "README.md" && h.size() >= 2 &&
        lower(plain_text(h[0])) == "alias" && lower(plain_text(h[1])) == "product") {
      for (const auto& r : tab.rows) {
        if (r.cells.size() >= 2 && !r.cells[0].empty() && !r.cells[1].empty()) {
          m_site.out.aliases.emplace_back(plain_text(r.cells[0]), canonical_product_name(r.cells[1]));
        }
      }
      return;
    }
    std::vector<size_t> product_cols;
    for (size_t c = 1; c < h.size(); ++c) {
      if (product_like(h[c]) && column_kind(h[c]) == ColumnKind::value && !unit_in_text(h[c])) {
        product_cols.push_back(c);
      }
    }
    if (!product_cols.empty()) return products_as_columns(tab, product_cols);
    for (size_t c = 0; c < h.size(); ++c) {
      if (product_column(h[c])) return products_as_rows(tab, c);
    }
    if (auto c = product_cells_column(tab)) return products_as_rows(tab, *c);
    metrics_as_rows(tab);
  }

  // A column whose header names nothing known but whose cells are product names, in any
  // position ("| Vendor | Card | HBM BW |"): most of its rows (and at least two) name products.
  // Another column's header must name a metric, and a model number has two digits or more
  // ("WG0", "MXFP8" and "NVFP4" in a first column name no products).
  static std::optional<size_t> product_cells_column(const Table& tab) {
    if (tab.rows.size() < 2) return std::nullopt;
    size_t metric_headers = 0;
    for (const auto& h : tab.header) metric_headers += metrics_from_text(h).empty() ? 0 : 1;
    if (metric_headers == 0) return std::nullopt;
    auto model = [](const std::string& cell) {
      std::string s = plain_text(cell);
      size_t digits = 0, run = 0;
      for (char ch : s) {
        run = std::isdigit(static_cast<unsigned char>(ch)) ? run + 1 : 0;
        digits = std::max(digits, run);
      }
      return digits >= 2 && product_like(s);
    };
    for (size_t c = 0; c < tab.header.size(); ++c) {
      if (!metrics_from_text(tab.header[c]).empty() || unit_in_text(tab.header[c]) ||
          workload_column(tab.header[c])) {
        continue;  // "| Version | ... |" of FA1, FA2 names kernels, not products
      }
      size_t named = 0;
      for (const auto& r : tab.rows) {
        if (c < r.cells.size() && model(r.cells[c])) ++named;
      }
      if (named >= 2 && named * 2 > tab.rows.size()) return c;
    }
    return std::nullopt;
  }

  // A row kgo did not index: report it when it looks like it states a spec.
  void unread_row(const Row& r, bool in_product, const std::string& why) {
    bool numbers = false, metric = false, quantity = false;
    for (size_t c = 0; c < r.cells.size(); ++c) {
      if (c > 0 && has_number(r.cells[c])) numbers = true;
      // "A100 SXM 80GB" names a product; its "80GB" states no spec.
      if (!product_like(r.cells[c]) && has_hardware_quantity(r.cells[c])) quantity = true;
    }
    if (!r.cells.empty()) metric = !metrics_from_text(r.cells[0]).empty();
    if ((numbers && (metric || in_product)) || quantity) issue(r.line, why);
  }

  void metrics_as_rows(const Table& tab) {
    const auto& p = m_site.product;
    std::vector<ColumnKind> kinds;
    int dense = -1;
    for (size_t c = 0; c < tab.header.size(); ++c) {
      ColumnKind k = c == 0 ? ColumnKind::label : column_kind(tab.header[c]);
      if (k == ColumnKind::value) {
        if (dense >= 0) k = ColumnKind::ignored;  // a second value column is checked below
        else dense = static_cast<int>(c);
      }
      kinds.push_back(k);
    }
    // A sparsity column without a unit of its own shares the value column's ("Peak TFLOPS").
    std::string table_unit;
    for (size_t c = 1; c < tab.header.size() && table_unit.empty(); ++c) {
      if (kinds[c] == ColumnKind::value || kinds[c] == ColumnKind::sparse) {
        table_unit = unit_in_text(tab.header[c]).value_or("");
      }
    }
    for (const auto& r : tab.rows) {
      if (!p) {
        unread_row(r, false, "table row outside any product section; put it under a product heading");
        continue;
      }
      const std::string label = r.cells.empty() ? "" : r.cells[0];
      for (size_t c = 1; c < r.cells.size(); ++c) {
        ColumnKind k = c < kinds.size() ? kinds[c] : ColumnKind::ignored;
        std::string unit = c < tab.header.size() ? unit_in_text(tab.header[c]).value_or("") : "";
        if (unit.empty()) unit = table_unit;
        if (unit.empty()) unit = unit_in_text(label).value_or("");
        if ((k == ColumnKind::value || k == ColumnKind::sparse) &&
            names_other_product(plain_text(label) + " " + plain_text(r.cells[c]), *p)) {
          issue(r.line, "'" + utf8_prefix(plain_text(label), 80) + "' names another product than the section's " + *p +
                            "; not credited to " + *p);
          break;
        } else if (k == ColumnKind::value || k == ColumnKind::sparse) {
          add_facts(m_site.out, site(*p, r.line), label, r.cells[c], unit, k == ColumnKind::sparse);
        } else if (k == ColumnKind::ignored && c < tab.header.size() &&
                   column_kind(tab.header[c]) == ColumnKind::value && has_number(r.cells[c])) {
          issue(r.line, *p + " '" + plain_text(label) + "': column '" + plain_text(tab.header[c]) +
                            "' is not read (only the first value column and sparsity columns are)");
        } else if (c >= tab.header.size() && has_hardware_quantity(r.cells[c])) {
          issue(r.line, "cell outside the table's columns: '" + utf8_prefix(plain_text(r.cells[c]), 80) + "'");
        }
      }
    }
  }

  void products_as_columns(const Table& tab, const std::vector<size_t>& cols) {
    std::vector<bool> stated(cols.size(), false);
    for (const auto& r : tab.rows) {
      if (r.cells.empty()) continue;
      const std::string& label = r.cells[0];
      std::string unit = unit_in_text(label).value_or("");
      bool sparse = column_kind(label) == ColumnKind::sparse;  // "BF16 Tensor Core with Sparsity (TFLOPS)"
      for (size_t k = 0; k < cols.size(); ++k) {
        size_t c = cols[k];
        if (c >= r.cells.size()) continue;
        size_t before = m_site.out.facts.size();
        add_facts(m_site.out, site(product_name(tab.header[c]), r.line), label, r.cells[c], unit, sparse);
        stated[k] = stated[k] || m_site.out.facts.size() > before;
      }
    }
    for (size_t k = 0; k < cols.size(); ++k) declare(product_name(tab.header[cols[k]]), "", tab.header_line, stated[k]);
  }

  // A product needs a vendor family's model name, or hardware figures of its own in a spec
  // document: a benchmark column ("AIME25"), a number format ("MXFP4") or a kernel compared in a
  // tutorial's table ("FA2" with its registers per thread) is none.
  void declare(const std::string& name, const std::string& arch, int line, bool stated) {
    if (number_format(name)) return;
    auto n = read_product_name(name);
    bool family = n && !n->model.empty();
    if (!family && (!stated || m_site.notes)) return;
    declare_product(m_site.out, name, arch, line, m_site.notes);
  }

  // A column naming a workload ("Variant", "Kernel", "Shape") makes each row a kernel's result on
  // that product, never a datasheet figure.
  static bool workload_column(const std::string& header) {
    std::string h = lower(plain_text(header));
    for (const char* w : {"variant", "kernel", "workload", "case", "benchmark", "config", "shape", "problem",
                          "scenario", "implementation", "method", "version", "test", "operator", "model", "batch",
                          "seq", "layer", "task", "mode"}) {
      if (h.find(w) != std::string::npos) return true;
    }
    return false;
  }

  void products_as_rows(const Table& tab, size_t pcol) {
    for (size_t c = 0; c < tab.header.size(); ++c) {
      if (c != pcol && workload_column(tab.header[c])) return;  // kernel results
    }
    std::vector<std::pair<size_t, std::string>> metric_cols;  // column, header unit
    std::vector<std::string> labels = tab.header;  // "| Memory | Capacity |": "Capacity" is the memory's
    for (size_t c = 0; c < tab.header.size(); ++c) {
      std::string h = lower(plain_text(tab.header[c]));
      bool quantity_word = h == "capacity" || h == "size" || h.rfind("capacity (", 0) == 0 || h.rfind("size (", 0) == 0;
      if (quantity_word && c > 0 && c != pcol && c - 1 != pcol && !metrics_from_text(tab.header[c - 1]).empty()) {
        std::string joined = tab.header[c - 1] + " " + tab.header[c];
        if (!metrics_from_text(joined).empty()) labels[c] = joined;
      }
      if (c != pcol && !metrics_from_text(labels[c]).empty()) {
        metric_cols.emplace_back(c, unit_in_text(tab.header[c]).value_or(""));
      }
    }
    for (const auto& r : tab.rows) {
      std::string cell = pcol < r.cells.size() ? r.cells[pcol] : "";
      if (metric_cols.empty() || !product_like(cell)) {
        unread_row(r, product_like(cell),
                   metric_cols.empty() ? "no column header of this table names a canonical metric"
                                       : "'" + plain_text(cell) + "' is not a product name");
        continue;
      }
      std::string name = product_name(cell);
      auto decl = product_heading(plain_text(cell));
      size_t before = m_site.out.facts.size();
      for (const auto& [c, unit] : metric_cols) {
        if (c < r.cells.size()) {
          add_facts(m_site.out, site(name, r.line), labels[c], r.cells[c], unit,
                    column_kind(tab.header[c]) == ColumnKind::sparse);
        }
      }
      declare(name, decl ? decl->arch : "", r.line, m_site.out.facts.size() > before);
    }
  }

  static std::string product_name(const std::string& cell) {
    std::string s = canonical_product_name(cell);
    size_t paren = s.find('(');
    return paren == std::string::npos ? s : trim(s.substr(0, paren));
  }

 private:
  const TableSite& m_site;

  void issue(int line, const std::string& msg) {
    m_site.out.issues.push_back(WikiIssue{"unparsed", m_site.file, line, msg});
  }

  FactSite site(const std::string& product, int line) const {
    return FactSite{product, m_site.file, line, m_site.measured, m_site.notes};
  }
};

}  // namespace

// Splits a table row into cells; `|` inside backticks or escaped as `\|` does not split.
std::vector<std::string> split_row(std::string_view line) {
  std::string s = trim(line);
  if (!s.empty() && s.front() == '|') s.erase(0, 1);
  if (!s.empty() && s.back() == '|' && (s.size() < 2 || s[s.size() - 2] != '\\')) s.pop_back();
  std::vector<std::string> cells;
  cells.reserve(static_cast<size_t>(std::count(s.begin(), s.end(), '|')) + 1);
  if (s.find('`') == std::string::npos && s.find('\\') == std::string::npos) {  // split at every `|`
    for (size_t start = 0;;) {
      size_t bar = s.find('|', start);
      cells.push_back(trim(std::string_view(s).substr(start, bar == std::string::npos ? bar : bar - start)));
      if (bar == std::string::npos) return cells;
      start = bar + 1;
    }
  }
  std::string cur;
  bool code = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '`') code = !code;
    if (c == '\\' && i + 1 < s.size() && s[i + 1] == '|') {
      cur += '|';
      ++i;
    } else if (c == '|' && !code) {
      cells.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  cells.push_back(trim(cur));
  return cells;
}

bool is_separator_row(const std::vector<std::string>& cells) {
  if (cells.empty()) return false;
  for (const auto& c : cells) {
    if (c.empty()) return false;
    for (char ch : c) {
      if (ch != '-' && ch != ':' && ch != ' ') return false;
    }
  }
  return true;
}

void parse_table(const Table& table, const TableSite& site) { TableParser(site).run(table); }

}  // namespace kgo::wiki
