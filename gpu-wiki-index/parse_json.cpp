// JSON record files. nlohmann::json does not report positions, so a small scanner walks the
// same text and records, for every scalar, its JSON pointer, line and raw token.
#include <map>

#include <nlohmann/json.hpp>

#include "gpu-wiki-index/metrics.hpp"
#include "gpu-wiki-index/parse_common.hpp"
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
  declare_product(out, product, str(rec, "arch"));
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
  if (is_record(doc)) {
    record(out, rel, doc, "", pos);
  } else if (doc.is_object() && doc.contains("records") && doc["records"].is_array()) {
    for (size_t k = 0; k < doc["records"].size(); ++k) {
      if (is_record(doc["records"][k])) record(out, rel, doc["records"][k], "/records/" + std::to_string(k), pos);
    }
  } else if (doc.is_array()) {
    for (size_t k = 0; k < doc.size(); ++k) {
      if (is_record(doc[k])) record(out, rel, doc[k], "/" + std::to_string(k), pos);
    }
  }
  return out;
}

}  // namespace kgo::wiki
