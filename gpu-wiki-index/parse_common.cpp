// Helpers shared by the markdown and JSON parsers: product names and turning one
// (label, value) pair into facts.
#include "gpu-wiki-index/parse_common.hpp"

#include <algorithm>
#include <cctype>
#include <regex>

#include "core/strings.hpp"
#include "gpu-wiki-index/memo.hpp"
#include "gpu-wiki-index/metrics.hpp"
#include "gpu-wiki-index/names.hpp"
#include "gpu-wiki-index/units.hpp"

namespace kgo::wiki {

namespace {

// A compile target: "sm_90", "sm_90a", "gfx942" (any case).
bool is_target_token(std::string_view part) {
  std::string p = lower(part);
  bool sm = p.rfind("sm_", 0) == 0, gfx = p.rfind("gfx", 0) == 0;
  if (!sm && !gfx) return false;
  size_t digits = 3;
  while (digits < p.size() && std::isdigit(static_cast<unsigned char>(p[digits]))) ++digits;
  if (digits == 3) return false;
  std::string_view rest = std::string_view(p).substr(digits);
  if (sm) return rest.empty() || (rest.size() == 1 && rest[0] >= 'a' && rest[0] <= 'z');
  return rest.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789") == std::string_view::npos;
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
  for (const char* suffix : {" Data Center GPU", " Datacenter GPU", " GPU", " Accelerator"}) {
    std::string suf = suffix;
    if (out.size() > suf.size() && lower(out.substr(out.size() - suf.size())) == lower(suf)) {
      out = trim(out.substr(0, out.size() - suf.size()));
    }
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
  // A title about a product ("Flash Attention on MI355X (gfx950)") is no product heading.
  size_t words = 0;
  for (size_t at = 0; at < name.size();) {
    size_t end = name.find(' ', at);
    if (end == std::string::npos) end = name.size();
    unsigned char c = static_cast<unsigned char>(name[at]);
    if (end > at && !std::isupper(c) && !std::isdigit(c)) return std::nullopt;
    ++words;
    at = end + 1;
  }
  if (words > 7) return std::nullopt;
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

namespace {

bool looks_like_product(std::string_view cell) {
  std::string s = canonical_product_name(cell);
  size_t paren = s.find('(');
  if (paren != std::string::npos) s = trim(s.substr(0, paren));
  if (number_format(s)) return false;  // "MXFP4", "NVFP4"
  static const std::regex re(R"(^([A-Z]{1,4})([0-9]{1,4})[A-Za-z]{0,3}( [A-Za-z0-9]+){0,3}$)");
  size_t caps = 0;  // the pattern's start, checked before the (slow) regex: 1-4 capitals, a digit
  while (caps < s.size() && caps < 5 && s[caps] >= 'A' && s[caps] <= 'Z') ++caps;
  if (caps == 0 || caps > 4 || caps >= s.size() || s[caps] < '0' || s[caps] > '9') {
    // A series or brand before the number: "RTX 4090", "GeForce RTX 4090", "RTX PRO 6000 Blackwell".
    std::string first = lower(s.substr(0, s.find_first_of(" 0123456789")));
    if (first != "rtx" && first != "gtx" && first != "rx" && first != "geforce" && first != "quadro" &&
        first != "radeon" && first != "tesla" && first != "gaudi") {
      return false;
    }
    auto n = read_product_name(s);
    return n && n->model.find(' ') != std::string::npos && n->editions.size() <= 2 &&
           std::count(s.begin(), s.end(), ' ') <= 6;
  }
  std::smatch m;
  if (!std::regex_match(s, m, re)) return false;
  std::string letters = m[1].str();
  for (const char* bad : {"FP", "BF", "TF", "INT", "HBM", "GDDR", "DDR", "LPDDR", "SM", "CU", "CC",
                          "PCIE", "NV", "XCD", "SIMD", "MFMA", "TB", "GB", "MB", "KB", "W", "CDNA", "RDNA",
                          "GCN", "GFX", "SM", "V", "P"}) {
    if (letters == bad && !(m[2].str().size() >= 3 && (letters == "V" || letters == "P"))) return false;
  }
  // Words after the model are form factors, memory sizes or editions ("H100 SXM5 80GB"), never
  // what a column measures ("P50 Latency", "MI308X Verdict").
  for (const char* bad : {"latency", "verdict", "result", "results", "speedup", "time", "throughput", "eff",
                          "applicability", "applicable", "scenarios", "value", "target", "fused", "notes"}) {
    if (lower(s).find(std::string(" ") + bad) != std::string::npos) return false;
  }
  if (letters == "L" && m[2].str().size() == 1 && m[2].str()[0] <= '3') return false;
  // "L2 Cache", "FP8 Tensor" name metrics; a memory edition after the model ("H100 80GB HBM3",
  // as drivers name the part) does not.
  std::string model = s;
  for (size_t sp = model.rfind(' '); sp != std::string::npos; sp = model.rfind(' ')) {
    std::string w = lower(model.substr(sp + 1));
    if (w.rfind("hbm", 0) != 0 && w.rfind("gddr", 0) != 0) break;
    model = model.substr(0, sp);
  }
  if (!metrics_from_text(model).empty()) return false;
  return true;
}

}  // namespace

bool product_like(std::string_view cell) {
  return memoized<bool>(cell, [](std::string_view c) { return looks_like_product(c); });
}

namespace {

// Model tokens ("H100", "MI300X", "B200", "4090") of a text; precisions, memory types and
// sizes are not models.
std::vector<std::string> find_model_tokens(const std::string& text) {
  auto upper = [](char c) { return c >= 'A' && c <= 'Z'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  auto alnum = [&](char c) { return upper(c) || digit(c) || (c >= 'a' && c <= 'z'); };
  std::vector<std::string> out;
  // Every model has a capital right before a digit, or before a space and a digit ("RTX 4090"):
  // text without one (most value cells) holds none.
  bool candidate = false;
  for (size_t i = 0; i + 1 < text.size() && !candidate; ++i) {
    bool spaced = text[i + 1] == ' ' && i + 2 < text.size() && digit(text[i + 2]);
    candidate = upper(text[i]) && (digit(text[i + 1]) || spaced);
  }
  if (!candidate) return out;
  // At a word start: an optional series ("RTX "), up to 3 capitals, 2-4 digits, up to 2 capitals,
  // then a word end ("H100", "MI300X", "RTX 4090", "B200"; not "HBM3E", "H100s").
  for (size_t p = 0; p < text.size(); ++p) {
    // A token starts with a capital (a series does too; a bare number names no model), after no
    // letter or digit.
    if (!upper(text[p])) continue;
    if (p > 0 && alnum(text[p - 1])) continue;
    for (std::string_view series : {"RTX ", "GTX ", "RX ", "RTX PRO ", ""}) {
      if (text.compare(p, series.size(), series) != 0) continue;
      size_t l = p + series.size();
      while (l < text.size() && upper(text[l]) && l - p - series.size() < 4) ++l;
      size_t d = l;
      while (d < text.size() && digit(text[d])) ++d;
      size_t e = d;
      while (e < text.size() && upper(text[e])) ++e;
      if (l - p - series.size() > 3 || d - l < 2 || d - l > 4 || e - d > 2 || (e < text.size() && alnum(text[e]))) {
        continue;
      }
      std::string_view letters = std::string_view(text).substr(p, l - p);
      bool bad = letters.empty();
      for (std::string_view b : {"FP", "BF", "TF", "INT", "HBM", "DDR", "SM", "CU", "NV", "XCD", "GFX", "TB", "GB",
                                 "MB", "KB", "PB", "W", "E", "M", "K", "N", "X", "D", "V", "P", "SXM", "CC", "SIMD"}) {
        if (letters == b) bad = true;
      }
      if (!bad) out.push_back(text.substr(p, e - p));
      p = e - 1;
      break;
    }
  }
  return out;
}

// Product names repeat on every row of a section.
const std::vector<std::string>& model_tokens(const std::string& text) {
  return memoized<std::vector<std::string>>(text, [](std::string_view t) { return find_model_tokens(std::string(t)); });
}

bool has_word(const std::string& text_lower, const std::string& w) {
  static const std::string alnum = "abcdefghijklmnopqrstuvwxyz0123456789";
  for (size_t at = text_lower.find(w); at != std::string::npos; at = text_lower.find(w, at + 1)) {
    bool left = at == 0 || alnum.find(text_lower[at - 1]) == std::string::npos;
    bool right = at + w.size() >= text_lower.size() || alnum.find(text_lower[at + w.size()]) == std::string::npos;
    if (left && right) return true;
  }
  return false;
}

}  // namespace

bool names_other_product(const std::string& text, const std::string& product) {
  const std::vector<std::string>& own = model_tokens(product);
  for (const auto& m : find_model_tokens(text)) {  // texts rarely repeat: not memoized
    if (std::find(own.begin(), own.end(), m) == own.end()) return true;
  }
  if (own.empty()) return false;
  std::string t = lower(text);
  if (!has_word(t, lower(own.front()))) return false;
  std::string p = lower(product);
  for (const char* form : {"sxm", "sxm4", "sxm5", "pcie", "nvl", "oam"}) {
    if (has_word(t, form) && !has_word(p, form)) return true;
  }
  return false;
}

std::vector<std::string> product_mentions(const std::string& text, size_t* others) {
  std::vector<std::string> out;
  size_t from = 0;
  if (others) *others = 0;
  for (const auto& m : find_model_tokens(text)) {  // sentences rarely repeat: not memoized
    size_t at = text.find(m, from);
    if (at == std::string::npos) continue;
    from = at + m.size();
    if (!vendor_family_model(m)) {
      if (others) ++*others;
      continue;
    }
    std::string name = m;
    size_t w = text.find_first_not_of(" -", from);
    size_t e = w == std::string::npos ? w : text.find_first_not_of(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", w);
    if (w != std::string::npos && w - from <= 1) {
      std::string word = lower(text.substr(w, e == std::string::npos ? e : e - w));
      for (const char* form : {"sxm", "sxm4", "sxm5", "sxm6", "pcie", "nvl", "oam"}) {
        if (word == form) name += " " + text.substr(w, word.size());
      }
    }
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

bool spec_document(const std::string& rel, std::string_view text) {
  std::string r = lower(rel);
  for (const char* w : {"spec", "datasheet", "data-sheet", "data_sheet", "measured/"}) {
    if (r.find(w) != std::string::npos) return true;
  }
  size_t start = 0;
  bool first = true;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    std::string line = trim(std::string(text.substr(start, nl - start)));
    start = nl + 1;
    if (first && line == "---") return true;  // front matter: product / kind stated
    first = false;
    size_t hashes = line.find_first_not_of('#');
    if (line.rfind("#", 0) != 0 || hashes == std::string::npos) continue;
    std::string title = trim(line.substr(hashes));
    if (product_heading(title)) return true;
    if (line.rfind("# ", 0) == 0) {
      std::string l = lower(title);
      for (const char* w : {"specification", "spec sheet", "datasheet", " specs"}) {
        if (l.find(w) != std::string::npos) return true;
      }
    }
  }
  return false;
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

namespace {

bool per_sm_metric(const std::string& metric) {
  return metric.size() > 7 && (metric.compare(metric.size() - 7, 7, "_per_sm") == 0 || metric == "l1_cache");
}

// The unit a value is stated per, when the cell says so right after the value ("64 KB / CU",
// "99 KB / block", "4 MB per XCD"); "" when it does not. Text in parentheses explains, not qualifies.
std::string per_what(const std::string& cell, const ParsedValue& pv) {
  size_t at = cell.find(pv.number_text);
  if (at == std::string::npos) return "";
  std::string rest = lower(cell.substr(at + pv.number_text.size()));
  rest = rest.substr(0, rest.find_first_of("(,;"));
  if (!pv.unit.empty()) {
    size_t u = rest.find(lower(pv.unit));
    if (u != std::string::npos) rest = rest.substr(u + pv.unit.size());
  }
  size_t k = rest.find("per ");
  size_t skip = 4;
  if (k == std::string::npos) {
    k = rest.find('/');
    skip = 1;
  }
  if (k == std::string::npos) return "";
  std::string w = trim(rest.substr(k + skip));
  size_t end = w.find_first_not_of("abcdefghijklmnopqrstuvwxyz");
  return w.substr(0, end);
}

// Splits "5,033.2 TFLOPS (Matrix), 2,516.6 TFLOPS (VFMA)" into its labelled values; empty unless
// every part is one value followed by a parenthesised qualifier.
std::vector<std::pair<std::string, std::string>> labelled_values(const std::string& cell) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t start = 0;
  while (start < cell.size()) {
    size_t open = cell.find('(', start);
    size_t close = open == std::string::npos ? open : cell.find(')', open);
    if (close == std::string::npos) return {};
    std::string value = trim(cell.substr(start, open - start));
    std::string qualifier = trim(cell.substr(open + 1, close - open - 1));
    if (value.empty() || qualifier.empty() || has_number(qualifier) || !parse_value(value)) return {};
    out.emplace_back(value, qualifier);
    size_t next = cell.find_first_not_of(" ", close + 1);
    if (next == std::string::npos) break;
    if (cell[next] != ',' && cell[next] != ';') return {};
    start = next + 1;
  }
  return out.size() > 1 ? out : std::vector<std::pair<std::string, std::string>>{};
}

}  // namespace

void add_facts(FileIndex& out, const FactSite& site, const std::string& label,
               const std::string& cell, const std::string& default_unit, bool sparse_column) {
  const std::string cell_text = plain_text(cell), label_text = plain_text(label);
  if (auto parts = labelled_values(cell_text); !parts.empty()) {
    for (const auto& [value, qualifier] : parts) {
      add_facts(out, site, label + " (" + qualifier + ")", value, default_unit, sparse_column);
    }
    return;
  }
  std::string why;
  auto pv = parse_value(cell, &why);
  auto issue = [&](const std::string& msg) {
    out.issues.push_back(WikiIssue{"unparsed", site.file, site.line, msg});
  };
  if (!pv) {
    if (!why.empty()) issue(site.product + " '" + label_text + "': cannot read the value: " + why);
    return;
  }
  auto metrics = metrics_from_text(label);
  if (metrics.empty()) {
    issue(site.product + ": label '" + label_text +
          "' names no canonical metric (value '" + cell_text + "' not indexed)");
    return;
  }
  std::string unit = pv->unit.empty() ? default_unit : pv->unit;
  bool sparse = sparse_column || pv->sparse;
  std::string per = per_what(cell_text, *pv);
  bool per_sm = per == "sm" || per == "cu" || per == "multiprocessor" || per == "sms" || per == "cus";
  if (!per.empty() && (!per_sm || !per_sm_metric(metrics.front()))) {
    issue(site.product + " '" + label_text + "' = '" + cell_text + "': a figure per " + per +
          " is not the product's " + metrics.front());
    return;
  }
  for (std::string metric : metrics) {
    if (sparse && !is_sparse_metric(metric)) {
      if (!is_canonical_metric(metric + "_sparse")) {
        issue(site.product + " '" + label_text + "': a sparse figure of a metric without a sparse variant");
        continue;
      }
      metric += "_sparse";
    }
    auto q = normalize(pv->value, unit);
    std::string dim = metric_dimension(metric);
    if (!q || q->dimension != dim) {
      issue(site.product + " '" + label_text + "' = '" + cell_text + "': " +
            (unit.empty() ? std::string("no unit") : "unit '" + unit + "'") + " does not fit " +
            metric + " (" + dim + ")");
      continue;
    }
    Fact f;
    f.product = site.product;
    f.metric = metric;
    f.label = label_text;
    f.value = pv->value;
    f.unit = unit;
    f.value_text = trim(cell);
    f.approximate = pv->approximate;
    f.measured = site.measured;
    f.kind = site.measured ? "measured" : site.notes ? "notes" : "datasheet";
    f.core = core_of(label, metric);
    f.file = site.file;
    f.line = site.line;
    out.facts.push_back(std::move(f));
  }
}

void declare_product(FileIndex& out, const std::string& name, const std::string& arch, int line, bool notes) {
  for (auto& p : out.products) {
    if (p.name == name) {
      if (p.arch.empty()) p.arch = arch;
      p.notes = p.notes && notes;
      return;
    }
  }
  out.products.push_back(ProductDecl{name, arch, line, "", notes});
}

namespace {

bool ends_with_ci(std::string_view name, std::string_view ext) {
  if (name.size() < ext.size()) return false;
  for (size_t i = 0; i < ext.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(name[name.size() - ext.size() + i])) != ext[i]) return false;
  }
  return true;
}

}  // namespace

bool wiki_file_name(std::string_view name) {
  for (std::string_view ext : {".md", ".markdown", ".json", ".yaml", ".yml", ".txt", ".log"}) {
    if (ends_with_ci(name, ext)) return true;
  }
  return false;
}

FileIndex parse_file(const std::string& rel, std::string_view text) {
  FileIndex out;
  if (ends_with_ci(rel, ".md") || ends_with_ci(rel, ".markdown")) out = parse_markdown(rel, text);
  else if (ends_with_ci(rel, ".json")) out = parse_json_records(rel, text);
  else if (ends_with_ci(rel, ".yaml") || ends_with_ci(rel, ".yml")) out = parse_yaml(rel, text);
  else if (ends_with_ci(rel, ".txt") || ends_with_ci(rel, ".log")) out = parse_dump(rel, text);
  for (auto& p : out.products) p.file = rel;
  return out;
}

}  // namespace kgo::wiki
