// Helpers shared by the markdown and JSON parsers: product names and turning one
// (label, value) pair into facts.
#include "gpu-wiki-index/parse_common.hpp"

#include <cctype>
#include <regex>

#include "gpu-wiki-index/metrics.hpp"
#include "gpu-wiki-index/units.hpp"

namespace kgo::wiki {

namespace {

std::string trim(std::string s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool is_target_token(const std::string& part) {
  static const std::regex re(R"(^(sm_\d+[a-z]?|gfx\d+[a-z0-9]*)$)", std::regex::icase);
  return std::regex_match(part, re);
}

}  // namespace

std::string canonical_product_name(std::string_view name) {
  std::string s = trim(plain_text(name));
  for (const char* prefix : {"NVIDIA ", "AMD Instinct ", "AMD ", "Instinct "}) {
    std::string p = prefix;
    if (s.size() > p.size() && lower(s.substr(0, p.size())) == lower(p)) s = trim(s.substr(p.size()));
  }
  std::string out;
  for (char c : s) {
    if (c == ' ' && !out.empty() && out.back() == ' ') continue;
    out += c;
  }
  return out;
}

std::optional<ProductDecl> product_heading(std::string_view heading) {
  std::string h = trim(plain_text(heading));
  size_t open = h.rfind('(');
  size_t close = h.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  std::string name = canonical_product_name(h.substr(0, open));
  if (name.empty() || name.find_first_of("0123456789") == std::string::npos) return std::nullopt;
  std::vector<std::string> parts;
  std::string cur;
  for (char c : h.substr(open + 1, close - open - 1)) {
    if (c == ',' || c == '/') {
      parts.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(trim(cur));
  bool target = false;
  std::string arch;
  for (const auto& p : parts) {
    if (is_target_token(p)) {
      target = true;
    } else if (!p.empty() && arch.empty()) {
      arch = p;
    }
  }
  if (!target || arch.empty()) return std::nullopt;
  return ProductDecl{name, arch};
}

bool product_like(std::string_view cell) {
  std::string s = canonical_product_name(cell);
  size_t paren = s.find('(');
  if (paren != std::string::npos) s = trim(s.substr(0, paren));
  static const std::regex re(R"(^([A-Z]{1,4})([0-9]{1,4})[A-Za-z]{0,3}( [A-Za-z0-9]+){0,3}$)");
  std::smatch m;
  if (!std::regex_match(s, m, re)) return false;
  std::string letters = m[1].str();
  for (const char* bad : {"FP", "BF", "TF", "INT", "HBM", "GDDR", "DDR", "LPDDR", "SM", "CU", "CC",
                          "PCIE", "NV", "XCD", "SIMD", "MFMA", "TB", "GB", "MB", "KB", "W"}) {
    if (letters == bad) return false;
  }
  if (letters == "L" && m[2].str().size() == 1 && m[2].str()[0] <= '3') return false;
  if (!metrics_from_text(s).empty()) return false;  // "L2 Cache", "FP8 Tensor"
  return true;
}

std::string core_of(const std::string& label, const std::string& metric) {
  std::string l = lower(label);
  if (l.find("tensor") != std::string::npos || l.find("matrix") != std::string::npos ||
      l.find("mfma") != std::string::npos) {
    return "tensor";
  }
  if (l.find("cuda core") != std::string::npos || l.find("vector") != std::string::npos) return "cuda";
  if (metric.find("_tensor") != std::string::npos) return "tensor";
  if (metric == "fp64" || metric == "fp32" || metric == "fp16" || metric == "bf16") return "cuda";
  return "";
}

void add_facts(FileIndex& out, const FactSite& site, const std::string& label,
               const std::string& cell, const std::string& default_unit, bool sparse_column) {
  std::string why;
  auto pv = parse_value(cell, &why);
  auto issue = [&](const std::string& msg) {
    out.issues.push_back(WikiIssue{"unparsed", site.file, site.line, msg});
  };
  if (!pv) {
    if (!why.empty()) issue(site.product + " '" + plain_text(label) + "': cannot read the value: " + why);
    return;
  }
  auto metrics = metrics_from_text(label);
  if (metrics.empty()) {
    issue(site.product + ": label '" + plain_text(label) +
          "' names no canonical metric (value '" + plain_text(cell) + "' not indexed)");
    return;
  }
  std::string unit = pv->unit.empty() ? default_unit : pv->unit;
  bool sparse = sparse_column || pv->sparse;
  for (std::string metric : metrics) {
    if (sparse && !is_sparse_metric(metric)) {
      if (!is_canonical_metric(metric + "_sparse")) {
        issue(site.product + " '" + plain_text(label) + "': a sparse figure of a metric without a sparse variant");
        continue;
      }
      metric += "_sparse";
    }
    auto q = normalize(pv->value, unit);
    std::string dim = metric_dimension(metric);
    if (!q || q->dimension != dim) {
      issue(site.product + " '" + plain_text(label) + "' = '" + plain_text(cell) + "': " +
            (unit.empty() ? std::string("no unit") : "unit '" + unit + "'") + " does not fit " +
            metric + " (" + dim + ")");
      continue;
    }
    Fact f;
    f.product = site.product;
    f.metric = metric;
    f.label = plain_text(label);
    f.value = pv->value;
    f.unit = unit;
    f.value_text = trim(cell);
    f.approximate = pv->approximate;
    f.measured = site.measured;
    f.core = core_of(label, metric);
    f.file = site.file;
    f.line = site.line;
    out.facts.push_back(std::move(f));
  }
}

void declare_product(FileIndex& out, const std::string& name, const std::string& arch) {
  for (auto& p : out.products) {
    if (p.name == name) {
      if (p.arch.empty()) p.arch = arch;
      return;
    }
  }
  out.products.push_back(ProductDecl{name, arch});
}

FileIndex parse_file(const std::string& rel, std::string_view text) {
  auto ends = [&](const char* ext) {
    std::string e = ext;
    return rel.size() >= e.size() && lower(rel.substr(rel.size() - e.size())) == e;
  };
  if (ends(".md")) return parse_markdown(rel, text);
  if (ends(".json")) return parse_json_records(rel, text);
  return {};
}

}  // namespace kgo::wiki
