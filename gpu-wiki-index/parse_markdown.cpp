#include <cctype>
#include <optional>

#include "gpu-wiki-index/metrics.hpp"
#include "gpu-wiki-index/parse_common.hpp"
#include "gpu-wiki-index/units.hpp"

namespace kgo::wiki {

namespace {

std::string trim(std::string_view v) {
  size_t b = v.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  return std::string(v.substr(b, v.find_last_not_of(" \t\r\n") - b + 1));
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool contains_any(const std::string& s, std::initializer_list<const char*> words) {
  for (const char* w : words) {
    if (s.find(w) != std::string::npos) return true;
  }
  return false;
}

// Splits a table row into cells; `|` inside backticks or escaped as `\|` does not split.
std::vector<std::string> split_row(std::string_view line) {
  std::string s = trim(line);
  if (!s.empty() && s.front() == '|') s.erase(0, 1);
  if (!s.empty() && s.back() == '|' && (s.size() < 2 || s[s.size() - 2] != '\\')) s.pop_back();
  std::vector<std::string> cells;
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

struct Row {
  int line;
  std::string raw;
  std::vector<std::string> cells;
};

struct Table {
  int header_line = 0;
  std::vector<std::string> header;
  std::vector<Row> rows;
};

class MarkdownParser {
 public:
  MarkdownParser(std::string rel) : m_rel(std::move(rel)) {}

  FileIndex run(std::string_view text) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start <= text.size()) {
      size_t nl = text.find('\n', start);
      if (nl == std::string_view::npos) nl = text.size();
      std::string l(text.substr(start, nl - start));
      if (!l.empty() && l.back() == '\r') l.pop_back();
      lines.push_back(std::move(l));
      start = nl + 1;
    }
    size_t i = front_matter(lines);
    bool fence = false;
    while (i < lines.size()) {
      std::string t = trim(lines[i]);
      int line_no = static_cast<int>(i) + 1;
      if (t.rfind("```", 0) == 0 || t.rfind("~~~", 0) == 0) {
        fence = !fence;
        ++i;
        continue;
      }
      if (fence) {
        ++i;
        continue;
      }
      if (t.rfind("#", 0) == 0) {
        heading(t, line_no);
        ++i;
        continue;
      }
      std::string body = quoted(t);
      if (body.rfind("|", 0) == 0 && i + 1 < lines.size() &&
          is_separator_row(split_row(quoted(trim(lines[i + 1]))))) {
        Table tab;
        tab.header_line = line_no;
        tab.header = split_row(body);
        i += 2;
        while (i < lines.size() && quoted(trim(lines[i])).rfind("|", 0) == 0) {
          tab.rows.push_back(Row{static_cast<int>(i) + 1, lines[i], split_row(quoted(trim(lines[i])))});
          ++i;
        }
        table(tab);
        continue;
      }
      text_line(body, line_no);
      ++i;
    }
    return std::move(m_out);
  }

 private:
  struct Scope {
    int level;
    std::optional<ProductDecl> product;
    bool aliases;
  };

  std::string m_rel;
  FileIndex m_out;
  std::vector<Scope> m_scopes;
  std::optional<std::string> m_file_product;
  bool m_measured = false;

  static std::string quoted(const std::string& t) {
    std::string s = t;
    while (!s.empty() && s.front() == '>') s = trim(s.substr(1));
    return s;
  }

  size_t front_matter(const std::vector<std::string>& lines) {
    if (lines.empty() || trim(lines[0]) != "---") return 0;
    for (size_t i = 1; i < lines.size(); ++i) {
      std::string t = trim(lines[i]);
      if (t == "---" || t == "...") {
        if (m_file_product) declare_product(m_out, *m_file_product, m_file_arch);
        return i + 1;
      }
      size_t colon = t.find(':');
      if (colon == std::string::npos) continue;
      std::string key = lower(trim(t.substr(0, colon)));
      std::string value = trim(t.substr(colon + 1));
      if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
        value = value.substr(1, value.size() - 2);
      }
      if (key == "product" && !value.empty()) m_file_product = canonical_product_name(value);
      if (key == "arch" || key == "architecture") m_file_arch = value;
      if (key == "kind") m_measured = lower(value) == "measured";
    }
    return 0;  // no closing line: not front matter
  }
  std::string m_file_arch;

  std::optional<std::string> product() const {
    for (auto it = m_scopes.rbegin(); it != m_scopes.rend(); ++it) {
      if (it->product) return it->product->name;
    }
    return m_file_product;
  }

  bool in_alias_section() const {
    for (const auto& s : m_scopes) {
      if (s.aliases) return true;
    }
    return false;
  }

  void heading(const std::string& t, int line_no) {
    size_t level = t.find_first_not_of('#');
    if (level == std::string::npos || level > 6 || (t[level] != ' ' && t[level] != '\t')) {
      text_line(t, line_no);
      return;
    }
    std::string title = trim(t.substr(level));
    while (!m_scopes.empty() && m_scopes.back().level >= static_cast<int>(level)) m_scopes.pop_back();
    Scope s{static_cast<int>(level), product_heading(title), false};
    std::string lt = lower(plain_text(title));
    s.aliases = lt == "product aliases" || lt == "aliases";
    if (!s.product && level == 1 && lt.rfind("measured maxima:", 0) == 0) {
      std::string rest = trim(plain_text(title).substr(16));
      size_t comma = rest.rfind(',');
      std::string name = canonical_product_name(comma == std::string::npos ? rest : rest.substr(0, comma));
      if (!name.empty()) s.product = ProductDecl{name, m_file_arch};
    }
    if (!s.product && level == 1) {
      if (auto name = title_product(plain_text(title))) s.product = ProductDecl{*name, m_file_arch};
    }
    if (s.product) declare_product(m_out, s.product->name, s.product->arch);
    m_scopes.push_back(std::move(s));
  }

  // A title that names one product and nothing else but a spec-sheet word scopes the file:
  // "# H20 Specifications", "# NVIDIA H100 SXM Datasheet". "# NVIDIA Hopper GPU Hardware
  // Compute Specifications Table" names an architecture, not a product, and does not.
  static std::optional<std::string> title_product(std::string title) {
    for (const char* suffix : {" specification table", " specifications", " specification", " spec sheet",
                               " specs", " spec", " datasheet", " data sheet", " hardware", " gpu",
                               " accelerator"}) {
      std::string suf = suffix;
      if (title.size() > suf.size() && lower(title.substr(title.size() - suf.size())) == suf) {
        title = trim(title.substr(0, title.size() - suf.size()));
      }
    }
    std::string name = canonical_product_name(title);
    if (name.find('(') != std::string::npos || !product_like(name)) return std::nullopt;
    return name;
  }

  void issue(int line, const std::string& msg) {
    m_out.issues.push_back(WikiIssue{"unparsed", m_rel, line, msg});
  }

  FactSite site(const std::string& product, int line) const {
    return FactSite{product, m_rel, line, m_measured};
  }

  // `key: value unit` lines and prose.
  void text_line(const std::string& t, int line_no) {
    std::string s = t;
    if (s.rfind("- ", 0) == 0 || s.rfind("* ", 0) == 0 || s.rfind("+ ", 0) == 0) s = trim(s.substr(2));
    size_t digits = s.find_first_not_of("0123456789");
    if (digits > 0 && digits != std::string::npos && s[digits] == '.' && digits + 1 < s.size() &&
        s[digits + 1] == ' ') {
      s = trim(s.substr(digits + 2));
    }
    size_t colon = s.find(':');
    auto p = product();
    if (colon != std::string::npos && colon > 0 && colon <= 80 && s.find("://") == std::string::npos) {
      std::string label = plain_text(s.substr(0, colon));
      std::string value = trim(s.substr(colon + 1));
      bool names_metric = !metrics_from_text(label).empty() && label.find('|') == std::string::npos;
      if (names_metric && has_number(value)) {
        if (p) {
          add_facts(m_out, site(*p, line_no), label, value, "", false);
        } else {
          issue(line_no, "'" + label + ": " + plain_text(value) +
                             "' is outside any product section; put it under a product heading");
        }
        return;
      }
    }
    if (has_hardware_quantity(s)) {
      issue(line_no, "spec-looking text kgo cannot index: '" + plain_text(s).substr(0, 120) +
                         "'; state it as a `metric: value unit` line or table row under a product heading");
    }
  }

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

  void table(const Table& tab) {
    const auto& h = tab.header;
    if (in_alias_section() && m_rel == "README.md" && h.size() >= 2 &&
        lower(plain_text(h[0])) == "alias" && lower(plain_text(h[1])) == "product") {
      for (const auto& r : tab.rows) {
        if (r.cells.size() >= 2 && !r.cells[0].empty() && !r.cells[1].empty()) {
          m_out.aliases.emplace_back(plain_text(r.cells[0]), canonical_product_name(r.cells[1]));
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
    metrics_as_rows(tab);
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
    auto p = product();
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
        if (k == ColumnKind::value || k == ColumnKind::sparse) {
          add_facts(m_out, site(*p, r.line), label, r.cells[c], unit, k == ColumnKind::sparse);
        } else if (k == ColumnKind::ignored && c < tab.header.size() &&
                   column_kind(tab.header[c]) == ColumnKind::value && has_number(r.cells[c])) {
          issue(r.line, *p + " '" + plain_text(label) + "': column '" + plain_text(tab.header[c]) +
                            "' is not read (only the first value column and sparsity columns are)");
        } else if (c >= tab.header.size() && has_hardware_quantity(r.cells[c])) {
          issue(r.line, "cell outside the table's columns: '" + plain_text(r.cells[c]).substr(0, 80) + "'");
        }
      }
    }
  }

  void products_as_columns(const Table& tab, const std::vector<size_t>& cols) {
    for (size_t c : cols) declare_product(m_out, product_name(tab.header[c]), "");
    for (const auto& r : tab.rows) {
      if (r.cells.empty()) continue;
      const std::string& label = r.cells[0];
      std::string unit = unit_in_text(label).value_or("");
      for (size_t c : cols) {
        if (c < r.cells.size()) {
          add_facts(m_out, site(product_name(tab.header[c]), r.line), label, r.cells[c], unit, false);
        }
      }
    }
  }

  void products_as_rows(const Table& tab, size_t pcol) {
    std::vector<std::pair<size_t, std::string>> metric_cols;  // column, header unit
    for (size_t c = 0; c < tab.header.size(); ++c) {
      if (c != pcol && !metrics_from_text(tab.header[c]).empty()) {
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
      declare_product(m_out, name, decl ? decl->arch : "");
      for (const auto& [c, unit] : metric_cols) {
        if (c < r.cells.size()) {
          add_facts(m_out, site(name, r.line), tab.header[c], r.cells[c], unit, false);
        }
      }
    }
  }

  static std::string product_name(const std::string& cell) {
    std::string s = canonical_product_name(cell);
    size_t paren = s.find('(');
    return paren == std::string::npos ? s : trim(s.substr(0, paren));
  }
};

}  // namespace

FileIndex parse_markdown(const std::string& rel, std::string_view text) {
  return MarkdownParser(rel).run(text);
}

}  // namespace kgo::wiki
