// Structured documents as trees: the schema-free record reader, and a YAML reader feeding it.
#include "gpu-wiki-index/parse_tree.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "core/strings.hpp"
#include "gpu-wiki-index/metrics.hpp"
#include "gpu-wiki-index/names.hpp"
#include "gpu-wiki-index/parse_common.hpp"
#include "gpu-wiki-index/units.hpp"

namespace kgo::wiki {

std::pair<std::string, std::string> key_label(const std::string& key) {
  static const std::vector<std::pair<std::string, std::string>> units = {
      {"kb", "KB"}, {"kib", "KiB"}, {"mb", "MB"}, {"mib", "MiB"}, {"gb", "GB"}, {"gib", "GiB"},
      {"tbps", "TB/s"}, {"gbps", "GB/s"}, {"mhz", "MHz"}, {"ghz", "GHz"}, {"w", "W"}, {"watts", "W"},
      {"tflops", "TFLOPS"}, {"pflops", "PFLOPS"}, {"tops", "TOPS"}, {"bytes", "B"}};
  std::vector<std::string> words;
  std::string unit;
  size_t start = 0;
  std::string k = lower(key);
  while (start <= k.size()) {
    size_t us = k.find_first_of("_- ", start);
    if (us == std::string::npos) us = k.size();
    std::string w = k.substr(start, us - start);
    bool is_unit = false;
    for (const auto& [suffix, u] : units) {
      if (w == suffix && unit.empty() && !words.empty()) {
        unit = u;
        is_unit = true;
      }
    }
    if (!is_unit && !w.empty()) words.push_back(w);
    start = us + 1;
  }
  return {join(words, " "), unit};
}

namespace {

bool product_key_name(const std::string& key) {
  std::string k = lower(key);
  for (const char* w : {"product", "gpu", "model", "gpu_model", "name", "device", "device_name", "marketing_name",
                        "product_name", "sku", "accelerator"}) {
    if (k == w) return true;
  }
  return false;
}

// A record about a workload (a kernel, a shape, a benchmark) states results, not the product's specs.
bool workload_key(const std::string& key) {
  std::string k = lower(key);
  for (const char* w : {"kernel", "workload", "benchmark", "shape", "problem", "op", "operator", "batch_size",
                        "seq_len", "implementation", "variant"}) {
    if (k == w) return true;
  }
  return false;
}

const TreeNode* child(const TreeNode& n, const char* key) {
  for (const auto& [k, v] : n.items) {
    if (lower(k) == key) return &v;
  }
  return nullptr;
}

class TreeReader {
 public:
  struct Scope {
    std::string product;
    bool measured = false;
    bool spec = false;
    bool workload = false;
  };

  TreeReader(FileIndex& out, const std::string& rel) : m_out(out), m_rel(rel) {
    std::string r = lower(rel);
    for (const char* w : {"spec", "datasheet", "data-sheet", "data_sheet", "measured/"}) {
      if (r.find(w) != std::string::npos) m_spec_path = true;
    }
  }

  // A machine-made collection's field table ("_header": {"fp32": {"full_name": "FP32", "unit":
  // "TFLOPS"}, ...}): a top-level mapping whose entries are mostly mappings with a unit or a full
  // name gives every record's key of that name its label and unit.
  void read_fields(const TreeNode& root) {
    if (root.kind != TreeNode::Kind::map) return;
    for (const auto& [k, v] : root.items) {
      if (v.kind != TreeNode::Kind::map || v.items.empty()) continue;
      size_t described = 0;
      for (const auto& [field, d] : v.items) {
        if (d.kind == TreeNode::Kind::map && (child(d, "unit") || child(d, "full_name"))) ++described;
      }
      if (described * 2 <= v.items.size()) continue;
      for (const auto& [field, d] : v.items) {
        const TreeNode* name = d.kind == TreeNode::Kind::map ? child(d, "full_name") : nullptr;
        const TreeNode* unit = d.kind == TreeNode::Kind::map ? child(d, "unit") : nullptr;
        m_fields[field] = {name && name->kind == TreeNode::Kind::scalar ? name->text : "",
                           unit && unit->kind == TreeNode::Kind::scalar ? unit->text : ""};
      }
      m_field_tables.insert(k);
    }
  }

  void walk(const TreeNode& n, const Scope& scope, const std::vector<std::string>& path) {
    if (n.kind == TreeNode::Kind::list) {
      for (const auto& [k, v] : n.items) walk(v, scope, path);
      return;
    }
    if (n.kind != TreeNode::Kind::map) {
      if (!scope.product.empty()) figure(n, scope, path, nullptr);
      return;
    }
    Scope s = record_scope(n, scope);
    if (s.workload) return;
    std::vector<std::string> p = s.product != scope.product ? std::vector<std::string>{} : path;
    const TreeNode* value = child(n, "value");
    if (value && value->kind == TreeNode::Kind::scalar && !s.product.empty()) {
      figure(*value, s, p, child(n, "unit"));
      return;
    }
    for (const auto& [k, v] : n.items) {
      if (path.empty() && scope.product.empty() && m_field_tables.count(k)) continue;
      if (product_key_name(k) || lower(k) == "kind" || lower(k) == "type" || lower(k) == "arch" ||
          lower(k) == "architecture") {
        continue;
      }
      if (s.product.empty() && v.kind == TreeNode::Kind::map && product_like(k)) {
        Scope named = s;
        named.product = canonical_product_name(k);
        declare(named, v.line);
        walk(v, named, {});
        continue;
      }
      auto q = p;
      q.push_back(k);
      walk(v, s, q);
    }
  }

 private:
  FileIndex& m_out;
  const std::string& m_rel;
  bool m_spec_path = false;
  std::map<std::string, std::pair<std::string, std::string>> m_fields;  // key -> full name, unit
  std::set<std::string> m_field_tables;

  Scope record_scope(const TreeNode& n, const Scope& outer) {
    Scope s = outer;
    for (const auto& [k, v] : n.items) {
      if (workload_key(k)) s.workload = true;
      if (v.kind != TreeNode::Kind::scalar) continue;
      std::string kl = lower(k), vl = lower(v.text);
      if (kl == "kind" || kl == "type" || kl == "source_kind" || kl == "doc_kind") {
        s.measured = vl == "measured" || vl == "measured-maxima" || vl == "measured_maxima";
        s.spec = s.measured || vl.find("spec") != std::string::npos || vl == "datasheet";
      }
    }
    for (const auto& [k, v] : n.items) {
      if (product_key_name(k) && v.kind == TreeNode::Kind::scalar && product_like(v.text)) {
        s.product = canonical_product_name(v.text);
        const TreeNode* arch = child(n, "arch");
        if (!arch) arch = child(n, "architecture");
        declare(s, v.line, arch && arch->kind == TreeNode::Kind::scalar ? arch->text : "");
        break;
      }
    }
    return s;
  }

  bool spec(const Scope& s) const { return m_spec_path || s.spec; }

  void declare(const Scope& s, int line, const std::string& arch = "") {
    // A notes record declares its product as notes do (tree_facts drops it when it states no figure).
    declare_product(m_out, s.product, arch, line, !spec(s));
  }

  void figure(const TreeNode& n, const Scope& s, const std::vector<std::string>& path, const TreeNode* unit_node) {
    if (n.kind != TreeNode::Kind::scalar || path.empty()) return;
    std::string label, unit;
    for (const auto& k : path) {
      auto [words, u] = key_label(k);
      label += (label.empty() ? "" : " ") + words;
      if (!u.empty()) unit = u;
    }
    if (auto f = m_fields.find(path.back()); f != m_fields.end() && path.size() == 1) {
      if (!f->second.first.empty()) label = f->second.first;
      if (!f->second.second.empty()) unit = f->second.second;
    }
    if (unit_node && unit_node->kind == TreeNode::Kind::scalar) unit = unit_node->text;
    if (metrics_from_text(label).empty()) {
      if (n.quoted && has_hardware_quantity(n.text)) {
        m_out.issues.push_back(WikiIssue{"unparsed", m_rel, n.line,
                                         s.product + ": key '" + join(path, ".") + "' = '" + utf8_prefix(n.text, 80) +
                                             "' names no canonical metric; not indexed"});
      }
      return;
    }
    if (!n.quoted && !has_number(n.text)) return;  // true, false, words
    add_facts(m_out, FactSite{s.product, m_rel, n.line, s.measured, !spec(s)}, label, n.text, unit, false);
  }
};

}  // namespace

void tree_facts(FileIndex& out, const std::string& rel, const TreeNode& root) {
  TreeReader r(out, rel);
  r.read_fields(root);
  r.walk(root, TreeReader::Scope{}, {});
  // A notes record names a product only with a vendor family's model name and figures of its own.
  std::erase_if(out.products, [&](const ProductDecl& p) {
    auto n = read_product_name(p.name);
    return p.notes && (!n || n->model.empty() || std::none_of(out.facts.begin(), out.facts.end(),
                                                              [&](const Fact& f) { return f.product == p.name; }));
  });
}

}  // namespace kgo::wiki
