// The lookups `kgo spec` and `kgo audit` share: which wiki a workspace uses, which metric and
// which products free text names, and which compute metrics a dtype needs.
#include <algorithm>
#include <cctype>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/workspace.hpp"
#include "gpu-wiki-index/metrics.hpp"
#include "specs/operations.hpp"
#include "specs/text.hpp"

namespace kgo::specs {

namespace fs = std::filesystem;

namespace {

std::string name_key(const std::string& s) {
  std::string out;
  for (char c : lower(s)) {
    bool alnum = std::isalnum(static_cast<unsigned char>(c));
    if (alnum) {
      out += c;
    } else if (!out.empty() && out.back() != ' ') {
      out += ' ';
    }
  }
  return trim(out);
}

}  // namespace

wiki::WikiLocation workspace_wiki(const fs::path& workspace, const std::optional<fs::path>& explicit_dir) {
  if (explicit_dir) return wiki::locate_wiki(explicit_dir);
  std::error_code ec;
  auto text = core::try_read_file(workspace / "specs.json");
  if (text) {
    auto j = nlohmann::json::parse(*text, nullptr, false);
    if (j.is_object() && j.value("wiki_path", "") != "" && fs::is_directory(j.value("wiki_path", ""), ec)) {
      return wiki::WikiLocation{fs::canonical(j.value("wiki_path", ""), ec), false, "specs.json"};
    }
  }
  if (fs::exists(workspace / "kgo.json", ec)) {
    core::WorkspaceConfig cfg = core::load_config(workspace);
    if (!cfg.wiki_path.empty() && fs::is_directory(cfg.wiki_path, ec)) {
      return wiki::WikiLocation{fs::canonical(cfg.wiki_path, ec), cfg.wiki_embedded, "kgo.json"};
    }
  }
  return wiki::locate_wiki(std::nullopt);
}

WikiView open_wiki(const wiki::WikiLocation& location) { return WikiView(wiki::WikiIndex::load(location)); }

std::string metric_for_text(const std::string& text, const std::string& dtype) {
  std::string t = trim(text);
  if (wiki::is_canonical_metric(t)) return t;
  std::string prefer;
  auto dtype_metrics = compute_metrics_for_dtype(dtype);
  if (!dtype_metrics.empty()) prefer = dtype_metrics.front();
  if (auto m = wiki::metric_from_text(t, prefer)) return *m;
  std::string names;
  for (const auto& n : wiki::canonical_metrics()) names += (names.empty() ? "" : ", ") + n;
  throw Error("'" + t + "' names no hardware metric kgo knows; name one of: " + names, ExitCode::unknown_metric);
}

std::vector<std::string> products_in_text(const std::string& text, const wiki::WikiIndex& index) {
  std::vector<std::pair<std::string, std::string>> names;  // key, product
  for (const auto& p : index.products()) names.emplace_back(name_key(p), p);
  for (const auto& [alias, target] : index.aliases()) names.emplace_back(name_key(alias), target);
  std::sort(names.begin(), names.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  std::string padded = " " + name_key(text) + " ";
  std::vector<bool> used(padded.size(), false);
  std::vector<std::string> out;
  auto add = [&](const std::string& p) {
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  };
  for (const auto& [key, product] : names) {
    if (key.empty()) continue;
    for (size_t pos = padded.find(" " + key + " "); pos != std::string::npos;
         pos = padded.find(" " + key + " ", pos + 1)) {
      if (std::any_of(used.begin() + pos + 1, used.begin() + pos + 1 + key.size(), [](bool b) { return b; })) continue;
      std::fill(used.begin() + pos + 1, used.begin() + pos + 1 + key.size(), true);
      add(product);
    }
  }
  // Bare names ("H100") of words with letters and digits not already matched.
  size_t i = 1;
  while (i < padded.size()) {
    size_t end = padded.find(' ', i);
    std::string word = padded.substr(i, end - i);
    bool digit = std::any_of(word.begin(), word.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    bool alpha = std::any_of(word.begin(), word.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
    if (!word.empty() && digit && alpha && !used[i]) {
      try {
        add(index.resolve_product(word));
      } catch (const Error&) {
        // Not a product name ("HBM3", "BF16"): nothing to check.
      }
    }
    i = end + 1;
  }
  return out;
}

std::vector<std::string> compute_metrics_for_dtype(const std::string& dtype) {
  std::string d = lower(trim(dtype));
  std::vector<std::string> m;
  if (d == "bf16" || d == "bfloat16") m = {"bf16_tensor"};
  else if (d == "fp16" || d == "float16" || d == "half") m = {"fp16_tensor"};
  else if (d.rfind("fp8", 0) == 0 || d.rfind("float8", 0) == 0) m = {"fp8_tensor"};
  else if (d == "tf32") m = {"tf32_tensor"};
  else if (d == "fp64" || d == "float64" || d == "double") m = {"fp64", "fp64_tensor"};
  else if (d == "int8") m = {"int8_tensor"};
  if (std::find(m.begin(), m.end(), "fp32") == m.end()) m.push_back("fp32");
  return m;
}

}  // namespace kgo::specs
