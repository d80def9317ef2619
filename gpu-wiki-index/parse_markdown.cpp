#include <algorithm>
#include <cctype>
#include <deque>
#include <optional>

#include "core/strings.hpp"
#include "gpu-wiki-index/metrics.hpp"
#include "gpu-wiki-index/parse_common.hpp"
#include "gpu-wiki-index/parse_table.hpp"
#include "gpu-wiki-index/units.hpp"

namespace kgo::wiki {

namespace {

class MarkdownParser {
 public:
  MarkdownParser(std::string rel) : m_rel(std::move(rel)) {}

  FileIndex run(std::string_view text) {
    m_notes = !spec_document(m_rel, text);
    // Lines are views of `text`, or of `edited` where non-content was cut out of them.
    std::vector<std::string_view> lines;
    std::deque<std::string> edited;
    size_t start = 0, rows = 0;  // rows: lines that may be table rows, each likely a fact
    while (start <= text.size()) {
      size_t nl = text.find('\n', start);
      if (nl == std::string_view::npos) nl = text.size();
      std::string_view l = text.substr(start, nl - start);
      if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
      if (l.find('|') != std::string_view::npos) ++rows;
      lines.push_back(l);
      start = nl + 1;
    }
    m_out.facts.reserve(std::min<size_t>(rows, 4096));
    size_t i = front_matter(lines);
    strip_non_content(lines, i, edited);
    bool fence = false;
    while (i < lines.size()) {
      std::string_view t = trimmed(lines[i]);
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
        heading(std::string(t), line_no);
        ++i;
        continue;
      }
      std::string_view body = quoted(t);
      // A table: a header row and a `---|---` line, with or without outer pipes.
      if (table_row(body) && i + 1 < lines.size() && table_row(quoted(lines[i + 1])) &&
          is_separator_row(split_row(quoted(lines[i + 1])))) {
        Table tab;
        tab.header_line = line_no;
        tab.header = split_row(body);
        i += 2;
        while (i < lines.size() && table_row(quoted(lines[i]))) {
          tab.rows.push_back(Row{static_cast<int>(i) + 1, std::string(lines[i]), split_row(quoted(lines[i]))});
          ++i;
        }
        table(tab);
        continue;
      }
      text_line(std::string(body), line_no);
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
  bool m_notes = false;

  // Blanks what is not content, keeping line numbers: HTML comments, indented code blocks
  // (4 spaces or a tab after a blank line, outside lists) and ~~struck-through~~ text.
  static void strip_non_content(std::vector<std::string_view>& lines, size_t from, std::deque<std::string>& edited) {
    bool comment = false, prev_blank = true, code = false;
    for (size_t i = from; i < lines.size(); ++i) {
      std::string_view& l = lines[i];
      if (!comment && l.find("<!--") == std::string_view::npos && l.find("~~") == std::string_view::npos) {
        code_block(l, prev_blank, code);  // the common line: nothing inline to strip
        continue;
      }
      std::string out;
      for (size_t k = 0; k < l.size();) {
        if (comment) {
          size_t end = l.find("-->", k);
          if (end == std::string_view::npos) { k = l.size(); break; }
          comment = false;
          k = end + 3;
        } else if (l.compare(k, 4, "<!--") == 0) {
          comment = true;
          k += 4;
        } else if (l.compare(k, 2, "~~") == 0 && l.find("~~", k + 2) != std::string_view::npos && k > 0 &&
                   l.find_first_not_of(" \t") < k) {
          k = l.find("~~", k + 2) + 2;  // struck-through span (a leading ~~~ is a fence)
        } else {
          out += l[k++];
        }
      }
      l = edited.emplace_back(std::move(out));
      code_block(l, prev_blank, code);
    }
  }

  // Indented code: 4 spaces or a tab after a blank line (or more code), outside lists; blanked.
  static void code_block(std::string_view& l, bool& prev_blank, bool& code) {
    size_t first = l.find_first_not_of(kWhitespace);
    bool blank = first == std::string_view::npos;
    if (!blank) {
      bool indented = l.rfind("    ", 0) == 0 || l.rfind("\t", 0) == 0;
      std::string_view t = l.substr(first);
      bool list_item = t.rfind("- ", 0) == 0 || t.rfind("* ", 0) == 0 || t.rfind("+ ", 0) == 0 ||
                       (std::isdigit(static_cast<unsigned char>(t[0])) && t.find(". ") != std::string_view::npos);
      code = indented && (code || prev_blank) && !list_item;
    }
    if (code) l = {};
    prev_blank = blank;
  }

  // A line that can be a table row: it has a `|` outside code spans that is not escaped.
  static bool table_row(std::string_view t) {
    if (t.empty() || t.find('|') == std::string_view::npos) return false;
    if (t.front() == '|') return true;
    return split_row(t).size() >= 2;
  }

  static std::string_view trimmed(std::string_view v) {
    size_t b = v.find_first_not_of(kWhitespace);
    return b == std::string_view::npos ? std::string_view() : v.substr(b, v.find_last_not_of(kWhitespace) - b + 1);
  }

  // The line trimmed, without blockquote markers ("> | a | b |" -> "| a | b |").
  static std::string_view quoted(std::string_view t) {
    t = trimmed(t);
    while (!t.empty() && t.front() == '>') t = trimmed(t.substr(1));
    return t;
  }

  size_t front_matter(const std::vector<std::string_view>& lines) {
    if (lines.empty() || trim(lines[0]) != "---") return 0;
    for (size_t i = 1; i < lines.size(); ++i) {
      std::string t = trim(lines[i]);
      if (t == "---" || t == "...") {
        if (m_file_product) declare_product(m_out, *m_file_product, m_file_arch, m_file_product_line);
        return i + 1;
      }
      size_t colon = t.find(':');
      if (colon == std::string::npos) continue;
      std::string key = lower(trim(t.substr(0, colon)));
      std::string value = trim(t.substr(colon + 1));
      if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
        value = value.substr(1, value.size() - 2);
      }
      if (key == "product" && !value.empty()) {
        m_file_product = canonical_product_name(value);
        m_file_product_line = static_cast<int>(i) + 1;
      }
      if (key == "arch" || key == "architecture") m_file_arch = value;
      if (key == "kind") m_measured = lower(value) == "measured";
    }
    return 0;  // no closing line: not front matter
  }
  std::string m_file_arch;
  int m_file_product_line = 0;

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
    if (!s.product && level == 1 && !m_file_product) {
      if (auto name = title_product(plain_text(title))) s.product = ProductDecl{*name, m_file_arch};
    }
    if (s.product) declare_product(m_out, s.product->name, s.product->arch, line_no);
    m_scopes.push_back(std::move(s));
  }

  // A title that names one product and nothing else but a spec-sheet word scopes the file:
  // "# H20 Specifications", "# NVIDIA H100 SXM Datasheet". "# NVIDIA Hopper GPU Hardware
  // Compute Specifications Table" names an architecture, not a product, and does not.
  static std::optional<std::string> title_product(std::string title) {
    for (std::string_view suf : {" specification table", " specifications", " specification", " spec sheet",
                                 " specs", " spec", " datasheet", " data sheet", " hardware", " gpu",
                                 " accelerator"}) {
      if (title.size() > suf.size() && lower(std::string_view(title).substr(title.size() - suf.size())) == suf) {
        title = trim(title.substr(0, title.size() - suf.size()));
      }
    }
    std::string name = canonical_product_name(title);
    if (name.find('(') != std::string::npos || !product_like(name)) return std::nullopt;
    // Words after the model must be form factors or memory sizes ("H20 notes" is no product).
    size_t space = name.find(' ');
    while (space != std::string::npos) {
      size_t next = name.find(' ', space + 1);
      std::string word = lower(name.substr(space + 1, next == std::string::npos ? next : next - space - 1));
      bool form = word == "sxm" || word == "sxm4" || word == "sxm5" || word == "pcie" || word == "nvl" ||
                  word == "oam" || (word.size() > 2 && word.substr(word.size() - 2) == "gb" &&
                                    word.find_first_not_of("0123456789") == word.size() - 2);
      if (!form) return std::nullopt;
      space = next;
    }
    return name;
  }

  void issue(int line, const std::string& msg) {
    m_out.issues.push_back(WikiIssue{"unparsed", m_rel, line, msg});
  }

  FactSite site(const std::string& product, int line) const {
    return FactSite{product, m_rel, line, m_measured, m_notes};
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
    if (!p && mentioned(s, line_no)) return;
    if (colon != std::string::npos && colon > 0 && colon <= 80 && s.find("://") == std::string::npos) {
      std::string label = plain_text(s.substr(0, colon));
      std::string value = trim(s.substr(colon + 1));
      bool names_metric = !metrics_from_text(label).empty() && label.find('|') == std::string::npos;
      if (names_metric && has_number(value)) {
        if (p && names_other_product(s, *p)) {
          issue(line_no, "'" + utf8_prefix(plain_text(s), 120) + "' names another product than the section's " + *p +
                             "; not credited to " + *p);
        } else if (p) {
          add_facts(m_out, site(*p, line_no), label, value, "", false);
        } else {
          issue(line_no, "'" + label + ": " + plain_text(value) +
                             "' is outside any product section; put it under a product heading");
        }
        return;
      }
    }
    if (p && !m_notes && prose(s, *p, line_no)) return;
    if (has_hardware_quantity(s)) {
      issue(line_no, "spec-looking text kgo cannot index: '" + utf8_prefix(plain_text(s), 120) +
                         "'; state it as a `metric: value unit` line or table row under a product heading");
    }
  }

  // A line outside any product section whose sentences each name one product of a vendor family
  // and state its figures ("On B200's 8 TB/s HBM3e ...", "- MI300X: 304 CUs"): read as a notes
  // table is (facts of kind notes, never a spec sheet's), the product declared as notes name it.
  // A sentence that names two products, or two figures of one metric, states nothing here.
  bool mentioned(const std::string& s, int line_no) {
    if (!has_hardware_quantity(s)) return false;  // most lines: no sentence to split
    bool handled = false;
    for (const auto& sentence : sentences(s)) {
      if (!has_hardware_quantity(sentence)) continue;
      size_t others = 0;
      auto names = product_mentions(sentence, &others);
      if (names.size() != 1 || others > 0) continue;
      ProseFigures read = prose_figures(sentence);
      if (!read.refused.empty()) issue(line_no, "'" + utf8_prefix(plain_text(sentence), 120) + "': " + read.refused);
      size_t before = m_out.facts.size();
      for (const auto& f : read.figures) {
        add_facts(m_out, FactSite{names[0], m_rel, line_no, m_measured, true}, f.label, f.value, "", false);
      }
      if (m_out.facts.size() == before) continue;
      declare_product(m_out, names[0], "", line_no, true);
      handled = true;
    }
    return handled;
  }

  // Sentences of a spec document that state one figure each; true when every spec-looking
  // sentence of the line was read or reported (else the caller reports the line).
  bool prose(const std::string& s, const std::string& product, int line_no) {
    if (s.find('|') != std::string::npos) return false;  // a broken table row is no sentence
    bool handled = false, unread = false;
    for (const auto& sentence : sentences(s)) {
      if (!has_hardware_quantity(sentence)) continue;
      auto figure = prose_figure(sentence);
      if (!figure) {
        unread = true;
      } else if (names_other_product(sentence, product)) {
        issue(line_no, "'" + utf8_prefix(plain_text(sentence), 120) + "' names another product than the section's " +
                           product + "; not credited to " + product);
        handled = true;
      } else {
        add_facts(m_out, site(product, line_no), figure->label, figure->value, "", false);
        handled = true;
      }
    }
    return handled && !unread;
  }

  void table(const Table& tab) {
    parse_table(tab, TableSite{m_out, m_rel, product(), m_measured, in_alias_section(), m_notes});
  }
};

}  // namespace

FileIndex parse_markdown(const std::string& rel, std::string_view text) {
  return MarkdownParser(rel).run(text);
}

}  // namespace kgo::wiki
