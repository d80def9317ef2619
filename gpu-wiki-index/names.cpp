// The alias table: every word people put around a model number, and what it says about the SKU.
#include "gpu-wiki-index/names.hpp"

#include <algorithm>
#include <cctype>

#include "core/strings.hpp"

namespace kgo::wiki {

namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool is_one_of(std::string_view s, std::initializer_list<std::string_view> words) {
  return std::find(words.begin(), words.end(), s) != words.end();
}

// Vendor, brand, architecture and filler words: they never tell two SKUs apart.
bool filler(std::string_view w) {
  return is_one_of(w, {"NVIDIA", "AMD", "INTEL", "GEFORCE", "QUADRO", "TESLA", "INSTINCT", "RADEON", "GPU", "GPUS",
                       "ACCELERATOR", "CARD", "DATA", "CENTER", "DATACENTER", "TENSOR", "CORE", "THE", "WITH", "MODULE",
                       "BOARD", "GRAPHICS", "EDITION", "HOPPER", "BLACKWELL", "AMPERE", "ADA", "LOVELACE", "VOLTA",
                       "TURING", "PASCAL", "CDNA", "CDNA2", "CDNA3", "CDNA4", "GRACE", "SUPERCHIP", "SERIES", "OF",
                       "VERSION", "FORM", "FACTOR"});
}

std::string form_of(std::string_view w) {
  if (w.rfind("SXM", 0) == 0 && (w.size() == 3 || all_digits(w.substr(3)))) return "SXM";
  if (w == "PCIE" || w == "PCI") return "PCIE";
  if (w == "NVL" || w == "OAM") return std::string(w);
  return "";
}

bool memory_type(std::string_view w) {
  return is_one_of(w, {"HBM", "HBM2", "HBM2E", "HBM3", "HBM3E", "HBM4", "GDDR6", "GDDR6X", "GDDR7"});
}

// Dies and the products built on them ("GH100" is the H100's die, not a product of its own).
struct Die {
  std::string_view die;
  std::initializer_list<std::string_view> models;
};
const Die kDies[] = {
    {"GH100", {"H100", "H800"}},         {"GA100", {"A100", "A800"}},    {"GB100", {"B100", "B200"}},
    {"GB102", {"B100", "B200"}},         {"GV100", {"V100"}},            {"GP100", {"P100"}},
    {"AD102", {"RTX 4090", "L40", "L40S"}}, {"GB202", {"RTX 5090", "RTX PRO 6000"}},
    {"GA102", {"RTX 3090", "A10", "A40"}}, {"AD104", {"RTX 4070", "L4"}},
};

// Marketing and driver names: the SXM5 H100 reports itself as "H100 80GB HBM3", the PCIe card
// as "H100 PCIe" with HBM2e; a name that states the memory type thereby states the form factor.
struct Marketing {
  std::string_view model, memory_type, form;
};
const Marketing kMarketing[] = {
    {"H100", "HBM3", "SXM"}, {"H100", "HBM2E", "PCIE"}, {"H800", "HBM3", "SXM"}, {"H800", "HBM2E", "PCIE"}};

// Upper-cased words; '-', '_', '/', ',', '(' and ')' separate, "RTX4090" splits into "RTX 4090",
// "80 GB" joins into "80GB".
std::vector<std::string> words(std::string_view name) {
  std::vector<std::string> raw;
  std::string cur;
  for (char c : name) {
    unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '.') {
      cur += static_cast<char>(std::toupper(u));
    } else if (!cur.empty()) {
      raw.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) raw.push_back(std::move(cur));
  std::vector<std::string> out;
  for (auto& w : raw) {
    for (std::string_view series : {"RTX", "GTX", "RX", "GAUDI"}) {
      if (w.size() > series.size() && w.rfind(series, 0) == 0 && all_digits(w.substr(series.size()))) {
        out.emplace_back(series);
        w = w.substr(series.size());
        break;
      }
    }
    if ((w == "GB" || w == "G") && !out.empty() && all_digits(out.back())) {
      out.back() += "GB";
      continue;
    }
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace

bool vendor_family_model(std::string_view t) {
  std::string s = upper(t);
  for (std::string_view series : {"RTX PRO ", "RTX ", "GTX ", "RX ", "GAUDI "}) {
    if (s.rfind(series, 0) == 0) {
      std::string_view rest = std::string_view(s).substr(series.size());
      size_t sp = rest.find(' ');
      return all_digits(rest.substr(0, sp)) && rest.size() >= 1;
    }
  }
  if (is_one_of(s, {"L4", "T4", "A2", "GH200", "GB200", "GB300"})) return true;
  size_t letters = 0;
  while (letters < s.size() && std::isupper(static_cast<unsigned char>(s[letters]))) ++letters;
  size_t digits = letters;
  while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits]))) ++digits;
  std::string_view pre = std::string_view(s).substr(0, letters);
  size_t nd = digits - letters, suffix = s.size() - digits;
  bool suffix_letters = std::all_of(s.begin() + static_cast<long>(digits), s.end(),
                                    [](char c) { return std::isupper(static_cast<unsigned char>(c)); });
  if (!suffix_letters) return false;
  if (pre == "MI") return nd >= 2 && nd <= 3 && suffix <= 2;
  if (pre.size() == 1 && std::string_view("ABHLTVPK").find(pre[0]) != std::string_view::npos) {
    return nd >= 2 && nd <= 3 && suffix <= 1;
  }
  return false;
}

bool number_format(std::string_view name) {
  std::string s = upper(trim(name));
  size_t i = 0;
  if (s.rfind("MX", 0) == 0 || s.rfind("NV", 0) == 0) i = 2;
  for (std::string_view p : {"FP", "INT", "BF", "TF", "UINT"}) {
    if (s.compare(i, p.size(), p) == 0) {
      std::string_view rest = std::string_view(s).substr(i + p.size());
      return !rest.empty() && std::isdigit(static_cast<unsigned char>(rest[0]));
    }
  }
  if (i == 0) {
    size_t k = s.rfind("UE", 0) == 0 ? 2 : (s.rfind("E", 0) == 0 ? 1 : std::string::npos);
    if (k != std::string::npos) {
      size_t m = s.find('M', k);
      return m != std::string::npos && m > k && all_digits(std::string_view(s).substr(k, m - k)) &&
             all_digits(std::string_view(s).substr(m + 1));
    }
  }
  return false;
}

std::optional<ProductName> read_product_name(std::string_view name) {
  std::vector<std::string> w = words(name);
  ProductName n;
  for (size_t i = 0; i < w.size(); ++i) {
    const std::string& t = w[i];
    if (filler(t)) continue;
    if (t.rfind("SM", 0) == 0 && t.size() > 2 && std::isdigit(static_cast<unsigned char>(t[2]))) continue;  // sm_90
    if (t.rfind("GFX", 0) == 0) continue;
    if (std::string f = form_of(t); !f.empty()) {
      if (!n.form.empty() && n.form != f) return std::nullopt;  // two form factors: no one SKU
      n.form = f;
      if (t == "PCI" && i + 1 < w.size() && w[i + 1] == "E") ++i;
      continue;
    }
    if (memory_type(t)) {
      n.memory_type = t;
      continue;
    }
    if (t.size() > 2 && t.compare(t.size() - 2, 2, "GB") == 0 && all_digits(t.substr(0, t.size() - 2))) {
      n.memory_gb = std::stoi(t.substr(0, t.size() - 2));
      continue;
    }
    if (n.model.empty() && n.models.empty()) {
      if (auto d = std::find_if(std::begin(kDies), std::end(kDies), [&](const Die& x) { return x.die == t; });
          d != std::end(kDies)) {
        for (auto m : d->models) n.models.emplace_back(m);
        continue;
      }
      bool series = is_one_of(t, {"RTX", "GTX", "RX", "GAUDI"});
      if (series && i + 1 < w.size()) {
        std::string model = t;
        if (t == "RTX" && w[i + 1] == "PRO" && i + 2 < w.size()) model += " " + w[++i];
        if (all_digits(w[i + 1])) {
          model += " " + w[++i];
          while (i + 1 < w.size() && is_one_of(w[i + 1], {"TI", "SUPER", "XT", "XTX", "D", "ADA"})) model += " " + w[++i];
          n.model = model;
          n.models = {model};
          continue;
        }
      }
      if (vendor_family_model(t)) {
        n.model = t;
        n.models = {t};
        continue;
      }
    }
    n.editions.push_back(t);
  }
  if (n.models.empty()) return std::nullopt;
  if (n.form.empty() && !n.memory_type.empty()) {
    for (const auto& m : kMarketing) {
      if (m.model == n.model && m.memory_type == n.memory_type) n.form = m.form;
    }
  }
  std::sort(n.editions.begin(), n.editions.end());
  return n;
}

NameFit fit(const ProductName& wanted, const ProductName& defined) {
  bool same_model = std::any_of(wanted.models.begin(), wanted.models.end(), [&](const std::string& m) {
    return std::find(defined.models.begin(), defined.models.end(), m) != defined.models.end();
  });
  if (!same_model || (!wanted.model.empty() && !defined.model.empty() && wanted.model != defined.model)) {
    return NameFit::none;
  }
  NameFit out = NameFit::full;
  auto part = [&](bool stated_wanted, bool stated_defined, bool equal) {
    if (!stated_wanted) return;
    if (!stated_defined) out = NameFit::partial;
    else if (!equal) out = NameFit::none;
  };
  part(!wanted.form.empty(), !defined.form.empty(), wanted.form == defined.form);
  if (out == NameFit::none) return out;
  // Memory a name states only has to agree where both state it: within one model and form
  // factor the memory edition changes capacity, which the figures cited then state themselves.
  if (wanted.memory_gb > 0 && defined.memory_gb > 0 && wanted.memory_gb != defined.memory_gb) return NameFit::none;
  if (!wanted.memory_type.empty() && !defined.memory_type.empty() && wanted.memory_type != defined.memory_type) {
    return NameFit::none;
  }
  for (const auto& e : wanted.editions) {
    if (std::find(defined.editions.begin(), defined.editions.end(), e) != defined.editions.end()) continue;
    if (!defined.editions.empty()) return NameFit::none;
    out = NameFit::partial;
  }
  return out;
}

std::string describe(const ProductName& n) {
  std::string s = n.model.empty() ? join(n.models, " or ") : n.model;
  if (!n.form.empty()) s += " " + n.form;
  if (n.memory_gb > 0) s += " " + std::to_string(n.memory_gb) + "GB";
  if (!n.memory_type.empty()) s += " " + n.memory_type;
  for (const auto& e : n.editions) s += " " + e;
  return s;
}

}  // namespace kgo::wiki
