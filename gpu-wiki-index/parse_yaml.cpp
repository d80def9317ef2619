// A YAML reader for spec files: block mappings and sequences by indentation, plain and quoted
// scalars, flow collections of scalars, block scalars (| and >) as text, comments and several
// documents. Anchors, aliases and tags are not read (the file is reported, not guessed at).
#include <stdexcept>

#include "core/strings.hpp"
#include "gpu-wiki-index/parse_tree.hpp"

namespace kgo::wiki {

namespace {

struct YLine {
  int no;
  size_t indent;
  std::string text;  // without indentation and comment
};

// Removes a comment: '#' at the start or after a space, outside quotes.
std::string strip_comment(const std::string& s) {
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      if (i == 0 || s[i - 1] == ' ' || s[i - 1] == ':' || s[i - 1] == '[' || s[i - 1] == ',') quote = c;
    } else if (c == '#' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t')) {
      return s.substr(0, i);
    }
  }
  return s;
}

// Position of the ':' that ends a mapping key (followed by a space or the end), outside quotes.
size_t key_colon(const std::string& s) {
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if ((c == '"' || c == '\'') && i == 0) {
      quote = c;
    } else if (c == '{' || c == '[') {
      return std::string::npos;
    } else if (c == ':' && (i + 1 == s.size() || s[i + 1] == ' ' || s[i + 1] == '\t')) {
      return i;
    }
  }
  return std::string::npos;
}

TreeNode scalar(std::string s, int line) {
  TreeNode n;
  n.line = line;
  s = trim(s);
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return n;
  n.kind = TreeNode::Kind::scalar;
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) {
    n.text = s.substr(1, s.size() - 2);
    n.quoted = true;
  } else {
    n.text = s;
    n.quoted = s.find_first_not_of("0123456789.+-eE_") != std::string::npos;  // words, not a number
  }
  return n;
}

class YamlParser {
 public:
  explicit YamlParser(std::vector<YLine> lines) : m_l(std::move(lines)) {}

  TreeNode document() {
    if (m_i >= m_l.size()) return TreeNode{};
    TreeNode n = block(m_l[m_i].indent);
    if (m_i < m_l.size()) fail(m_l[m_i].no, "unexpected indentation");
    return n;
  }

 private:
  std::vector<YLine> m_l;
  size_t m_i = 0;

  [[noreturn]] static void fail(int line, const std::string& why) {
    throw std::runtime_error("line " + std::to_string(line) + ": " + why);
  }

  static bool is_item(const std::string& t) { return t == "-" || t.rfind("- ", 0) == 0; }

  TreeNode block(size_t indent) {
    const YLine& first = m_l[m_i];
    if (first.text.rfind("&", 0) == 0 || first.text.rfind("*", 0) == 0 || first.text.rfind("!", 0) == 0) {
      fail(first.no, "anchors, aliases and tags are not read");
    }
    if (is_item(first.text)) return list(indent);
    if (key_colon(first.text) != std::string::npos) return map(indent);
    ++m_i;
    return flow_or_scalar(first.text, first.no);
  }

  TreeNode list(size_t indent) {
    TreeNode n;
    n.kind = TreeNode::Kind::list;
    n.line = m_l[m_i].no;
    while (m_i < m_l.size() && m_l[m_i].indent == indent && is_item(m_l[m_i].text)) {
      YLine& l = m_l[m_i];
      std::string rest = l.text.size() > 1 ? l.text.substr(2) : "";
      size_t pad = rest.find_first_not_of(' ');
      if (pad == std::string::npos) {  // "-" alone: the item is the block below
        ++m_i;
        if (m_i < m_l.size() && m_l[m_i].indent > indent) n.items.emplace_back("", block(m_l[m_i].indent));
        else n.items.emplace_back("", TreeNode{});
        continue;
      }
      // "- key: value": the item's content starts where the text after "- " does.
      l.indent = indent + 2 + pad;
      l.text = rest.substr(pad);
      n.items.emplace_back("", block(l.indent));
    }
    return n;
  }

  TreeNode map(size_t indent) {
    TreeNode n;
    n.kind = TreeNode::Kind::map;
    n.line = m_l[m_i].no;
    while (m_i < m_l.size() && m_l[m_i].indent == indent && !is_item(m_l[m_i].text)) {
      const YLine l = m_l[m_i++];
      size_t colon = key_colon(l.text);
      if (colon == std::string::npos) fail(l.no, "expected 'key: value'");
      std::string key = trim(l.text.substr(0, colon));
      if (key.size() >= 2 && (key.front() == '"' || key.front() == '\'')) key = key.substr(1, key.size() - 2);
      std::string rest = trim(l.text.substr(colon + 1));
      if (rest == "|" || rest == ">" || rest == "|-" || rest == ">-") {
        n.items.emplace_back(key, block_scalar(indent, l.no));
      } else if (!rest.empty()) {
        n.items.emplace_back(key, flow_or_scalar(rest, l.no));
      } else if (m_i < m_l.size() && (m_l[m_i].indent > indent ||
                                      (m_l[m_i].indent == indent && is_item(m_l[m_i].text)))) {
        n.items.emplace_back(key, block(m_l[m_i].indent));
      } else {
        TreeNode null;
        null.line = l.no;
        n.items.emplace_back(key, null);
      }
    }
    return n;
  }

  TreeNode block_scalar(size_t indent, int line) {
    TreeNode n;
    n.kind = TreeNode::Kind::scalar;
    n.quoted = true;
    n.line = line;
    while (m_i < m_l.size() && m_l[m_i].indent > indent) n.text += (n.text.empty() ? "" : " ") + m_l[m_i++].text;
    return n;
  }

  // "[a, b]" and "{k: v, ...}" of scalars; anything else is one scalar.
  static TreeNode flow_or_scalar(const std::string& s, int line) {
    if (s.size() < 2 || !((s.front() == '[' && s.back() == ']') || (s.front() == '{' && s.back() == '}'))) {
      if (s.front() == '&' || s.front() == '*' || s.front() == '!') fail(line, "anchors, aliases and tags are not read");
      return scalar(s, line);
    }
    TreeNode n;
    n.kind = s.front() == '[' ? TreeNode::Kind::list : TreeNode::Kind::map;
    n.line = line;
    for (const std::string& part : split(s.substr(1, s.size() - 2), ',')) {
      if (trim(part).empty()) continue;
      if (n.kind == TreeNode::Kind::list) {
        n.items.emplace_back("", scalar(part, line));
      } else {
        size_t colon = part.find(':');
        if (colon == std::string::npos) fail(line, "expected 'key: value' in '{...}'");
        std::string key = trim(part.substr(0, colon));
        if (key.size() >= 2 && (key.front() == '"' || key.front() == '\'')) key = key.substr(1, key.size() - 2);
        n.items.emplace_back(key, scalar(part.substr(colon + 1), line));
      }
    }
    return n;
  }
};

}  // namespace

std::vector<TreeNode> parse_yaml_tree(std::string_view text) {
  std::vector<std::vector<YLine>> docs(1);
  int no = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    std::string raw(text.substr(start, nl - start));
    start = nl + 1;
    ++no;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    if (raw.find('\t') != std::string::npos && raw.find_first_not_of(" \t") > raw.find('\t')) {
      throw std::runtime_error("line " + std::to_string(no) + ": a tab in the indentation");
    }
    std::string body = strip_comment(raw);
    if (trim(body).empty()) continue;
    if (body.rfind("---", 0) == 0 || body.rfind("...", 0) == 0) {
      if (!docs.back().empty()) docs.emplace_back();
      continue;
    }
    if (body.rfind("%", 0) == 0) continue;  // directives
    size_t indent = body.find_first_not_of(' ');
    docs.back().push_back(YLine{no, indent, trim(body.substr(indent))});
  }
  std::vector<TreeNode> out;
  for (auto& d : docs) {
    if (!d.empty()) out.push_back(YamlParser(std::move(d)).document());
  }
  return out;
}

FileIndex parse_yaml(const std::string& rel, std::string_view text) {
  FileIndex out;
  try {
    for (const auto& doc : parse_yaml_tree(text)) tree_facts(out, rel, doc);
  } catch (const std::runtime_error& e) {
    out = FileIndex{};
    std::string why = e.what();
    int line = 1;
    if (why.rfind("line ", 0) == 0) line = std::atoi(why.c_str() + 5);
    out.issues.push_back(WikiIssue{"unparsed", rel, line,
                                   "YAML kgo cannot read (" + why + "); write it in block style without anchors"});
  }
  return out;
}

}  // namespace kgo::wiki
