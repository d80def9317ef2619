// JSON record files. nlohmann::json does not report positions, so a small scanner walks the
// same text and records, for every scalar, its JSON pointer, line and raw token.
#include <cctype>
#include <map>

#include <nlohmann/json.hpp>

#include "gpu-wiki-index/metrics.hpp"
#include "gpu-wiki-index/parse_common.hpp"
#include "gpu-wiki-index/parse_tree.hpp"
#include "gpu-wiki-index/units.hpp"

namespace kgo::wiki {

namespace {

struct Position {
  int line = 0;
  std::string raw;  // the token as written, quotes included for strings
};

class PositionScanner {
 public:
  explicit PositionScanner(std::string_view text) : m_s(text) {}

  // Pointer -> position of every scalar; empty when the text is not well-formed.
  std::map<std::string, Position> scan() {
    try {
      value("");
    } catch (const std::exception&) {
      m_out.clear();
    }
    return std::move(m_out);
  }

 private:
  std::string_view m_s;
  size_t m_i = 0;
  int m_line = 1;
  std::map<std::string, Position> m_out;

  void ws() {
    while (m_i < m_s.size() && std::string_view(" \t\r\n").find(m_s[m_i]) != std::string_view::npos) {
      if (m_s[m_i] == '\n') ++m_line;
      ++m_i;
    }
  }
  char peek() {
    ws();
    if (m_i >= m_s.size()) throw std::runtime_error("eof");
    return m_s[m_i];
  }
  std::string string_token() {
    size_t start = m_i++;
    while (m_i < m_s.size() && m_s[m_i] != '"') {
      if (m_s[m_i] == '\\') ++m_i;
      if (m_i < m_s.size() && m_s[m_i] == '\n') ++m_line;
      ++m_i;
    }
    if (m_i >= m_s.size()) throw std::runtime_error("unterminated string");
    ++m_i;
    return std::string(m_s.substr(start, m_i - start));
  }
  static std::string escape_pointer(const std::string& key) {
    std::string out;
    for (char c : key) {
      if (c == '~') out += "~0";
      else if (c == '/') out += "~1";
      else out += c;
    }
    return out;
  }
  void value(const std::string& ptr) {
    char c = peek();
    if (c == '{') {
      ++m_i;
      if (peek() == '}') {
        ++m_i;
        return;
      }
      while (true) {
        if (peek() != '"') throw std::runtime_error("key");
        std::string key = nlohmann::json::parse(string_token()).get<std::string>();
        if (peek() != ':') throw std::runtime_error("colon");
        ++m_i;
        value(ptr + "/" + escape_pointer(key));
        char d = peek();
        ++m_i;
        if (d == '}') return;
        if (d != ',') throw std::runtime_error("comma");
      }
    }
    if (c == '[') {
      ++m_i;
      if (peek() == ']') {
        ++m_i;
        return;
      }
      for (int k = 0;; ++k) {
        value(ptr + "/" + std::to_string(k));
        char d = peek();
        ++m_i;
        if (d == ']') return;
        if (d != ',') throw std::runtime_error("comma");
      }
    }
    int line = m_line;
    std::string raw;
    if (c == '"') {
      raw = string_token();
    } else {
      size_t start = m_i;
      while (m_i < m_s.size() && std::string_view(",]} \t\r\n").find(m_s[m_i]) == std::string_view::npos) ++m_i;
      raw = std::string(m_s.substr(start, m_i - start));
    }
    m_out[ptr] = Position{line, raw};
  }
};

std::string str(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

void record(FileIndex& out, const std::string& rel, const nlohmann::json& rec, const std::string& ptr,
            const std::map<std::string, Position>& pos) {
  std::string product = canonical_product_name(str(rec, "product"));
  auto issue = [&](int line, const std::string& msg) {
    out.issues.push_back(WikiIssue{"unparsed", rel, line, msg});
  };
  auto facts = rec.find("facts");
  if (product.empty()) {
    issue(pos.count(ptr + "/facts") ? pos.at(ptr + "/facts").line : 1,
          "record " + (ptr.empty() ? std::string("/") : ptr) + " has facts but no \"product\"");
    return;
  }
  declare_product(out, product, str(rec, "arch"), pos.count(ptr + "/product") ? pos.at(ptr + "/product").line : 1);
  bool measured = str(rec, "kind") == "measured";
  for (size_t k = 0; k < facts->size(); ++k) {
    const auto& f = (*facts)[k];
    std::string fptr = ptr + "/facts/" + std::to_string(k);
    auto vp = pos.find(fptr + "/value");
    if (!f.is_object() || vp == pos.end()) {
      issue(1, "fact " + fptr + " has no \"value\"");
      continue;
    }
    std::string label = str(f, "label");
    std::string metric = str(f, "metric");
    if (metric.empty()) metric = label;
    if (label.empty()) label = metric;
    if (is_canonical_metric(metric)) label = metric;  // the metric name maps to itself
    const Position& p = vp->second;
    std::string cell = f["value"].is_string() ? f["value"].get<std::string>() : p.raw;
    if (f.value("approximate", false) && cell.rfind("~", 0) != 0) cell = "~" + cell;
    FactSite site{product, rel, p.line, measured};
    size_t before = out.facts.size();
    add_facts(out, site, is_canonical_metric(metric) ? metric : label, cell, str(f, "unit"),
              f.value("sparse", false));
    for (size_t n = before; n < out.facts.size(); ++n) {
      out.facts[n].value_text = p.raw;
      out.facts[n].approximate = out.facts[n].approximate || f.value("approximate", false);
      if (!str(f, "label").empty()) out.facts[n].label = str(f, "label");
      if (!str(f, "core").empty()) out.facts[n].core = str(f, "core");
    }
  }
}

// An atrex-style hardware record: {"identity": {"product", "arch"}, "type": "spec-sheet",
// "facts": {"peak_compute": [{dtype, unit, unit_kind, dense, sparse_2to4}], "memory": {...},
// "compute_units": {...}}}. Section keys carry their unit as a suffix; null values are gaps.
void hw_record(FileIndex& out, const std::string& rel, const nlohmann::json& rec,
               const std::map<std::string, Position>& pos) {
  const auto& id = rec["identity"];
  std::string product = id.contains("product") && id["product"].is_string()
                            ? canonical_product_name(id["product"].get<std::string>()) : "";
  for (auto& c : product) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (str(rec, "type") != "spec-sheet") return;  // instructions and features state no specs
  if (product.empty()) {
    int line = pos.count("/identity/product") ? pos.at("/identity/product").line : 1;
    out.issues.push_back(WikiIssue{"unparsed", rel, line,
                                   "spec-sheet record names no product (identity.product is null); its figures "
                                   "are not credited to any product"});
    return;
  }
  declare_product(out, product, str(id, "arch"),
                  pos.count("/identity/product") ? pos.at("/identity/product").line : 1);
  const auto& facts = rec["facts"];
  auto value_at = [&](const std::string& ptr, const std::string& label, const std::string& unit, bool sparse) {
    auto p = pos.find(ptr);
    if (p == pos.end() || p->second.raw == "null" || p->second.raw.front() == '"') return;
    add_facts(out, FactSite{product, rel, p->second.line, false, false}, label, p->second.raw, unit, sparse);
  };
  if (facts.contains("peak_compute") && facts["peak_compute"].is_array()) {
    for (size_t k = 0; k < facts["peak_compute"].size(); ++k) {
      const auto& e = facts["peak_compute"][k];
      if (!e.is_object()) continue;
      std::string kind = str(e, "unit_kind");
      std::string core = kind.find("tensor") != std::string::npos || kind.find("matrix") != std::string::npos
                             ? " Tensor Core"
                             : (kind.empty() ? "" : " CUDA Core");
      std::string label = str(e, "dtype") + core;
      std::string ptr = "/facts/peak_compute/" + std::to_string(k);
      value_at(ptr + "/dense", label, str(e, "unit"), false);
      value_at(ptr + "/sparse_2to4", label, str(e, "unit"), true);
    }
  }
  for (const char* section : {"memory", "compute_units", "clocks", "power", "interconnect"}) {
    if (!facts.contains(section) || !facts[section].is_object()) continue;
    for (const auto& [key, v] : facts[section].items()) {
      if (!v.is_number()) continue;
      auto [label, unit] = key_label(key);
      if (std::string(section) == "memory" && label == "capacity") label = "memory capacity";
      value_at("/facts/" + std::string(section) + "/" + key, label, unit, false);
    }
  }
}

// The document as a tree with the line of every scalar, for the schema-free reader.
TreeNode to_tree(const nlohmann::json& j, const std::string& ptr, const std::map<std::string, Position>& pos) {
  TreeNode n;
  auto p = pos.find(ptr);
  n.line = p == pos.end() ? 1 : p->second.line;
  if (j.is_object() || j.is_array()) {
    n.kind = j.is_object() ? TreeNode::Kind::map : TreeNode::Kind::list;
    size_t k = 0;
    for (const auto& [key, v] : j.items()) {
      std::string child = ptr + "/" + (j.is_object() ? key : std::to_string(k));
      auto node = to_tree(v, child, pos);
      if (n.line == 1 || node.line < n.line) n.line = node.line;
      n.items.emplace_back(j.is_object() ? key : "", std::move(node));
      ++k;
    }
  } else if (!j.is_null()) {
    n.kind = TreeNode::Kind::scalar;
    n.quoted = j.is_string();
    n.text = j.is_string() ? j.get<std::string>() : (p == pos.end() ? j.dump() : p->second.raw);
  }
  return n;
}

}  // namespace

FileIndex parse_json_records(const std::string& rel, std::string_view text) {
  FileIndex out;
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded()) {
    out.issues.push_back(WikiIssue{"unparsed", rel, 1, "not valid JSON; fix the syntax or remove the file"});
    return out;
  }
  auto pos = PositionScanner(text).scan();
  auto is_record = [](const nlohmann::json& j) {
    return j.is_object() && j.contains("facts") && j["facts"].is_array();
  };
  if (doc.is_object() && doc.contains("identity") && doc["identity"].is_object() && doc.contains("facts") &&
      doc["facts"].is_object()) {
    hw_record(out, rel, doc, pos);
  } else if (is_record(doc)) {
    record(out, rel, doc, "", pos);
  } else if (doc.is_object() && doc.contains("records") && doc["records"].is_array()) {
    for (size_t k = 0; k < doc["records"].size(); ++k) {
      if (is_record(doc["records"][k])) record(out, rel, doc["records"][k], "/records/" + std::to_string(k), pos);
    }
  } else if (doc.is_array() && !doc.empty() && is_record(doc[0])) {
    for (size_t k = 0; k < doc.size(); ++k) {
      if (is_record(doc[k])) record(out, rel, doc[k], "/" + std::to_string(k), pos);
    }
  } else {
    tree_facts(out, rel, to_tree(doc, "", pos));  // any other schema
  }
  return out;
}

}  // namespace kgo::wiki
