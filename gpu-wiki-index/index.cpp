#include "gpu-wiki-index/index.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/error.hpp"
#include "core/files.hpp"
#include "gpu-wiki-index/parse.hpp"

namespace kgo::wiki {

namespace fs = std::filesystem;

namespace {

// Comparison key of a product name: case, '-', '_' and repeated spaces do not matter.
std::string name_key(const std::string& name) {
  std::string out;
  for (char c : canonical_product_name(name)) {
    char d = (c == '-' || c == '_') ? ' ' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (d == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += d;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string join(const std::vector<std::string>& v, const std::string& sep, const std::string& last) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i > 0) out += (i + 1 == v.size()) ? last : sep;
    out += v[i];
  }
  return out;
}

std::string site_key(const std::string& file, int line) { return file + '\0' + std::to_string(line); }

std::string shown_value(const Fact& f) {
  std::string v = std::to_string(f.value);
  if (v.find('.') != std::string::npos) {
    v.erase(v.find_last_not_of('0') + 1);
    if (v.back() == '.') v.pop_back();
  }
  return (f.approximate ? "~" : "") + v + (f.unit.empty() ? "" : " " + f.unit);
}

}  // namespace

std::vector<WikiFile> list_wiki_files(const fs::path& root) {
  std::vector<WikiFile> files;
  std::error_code ec;
  auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
  if (ec) {
    throw Error("cannot read the gpu-wiki " + root.string() + ": " + ec.message() +
                    "; pass --wiki DIR naming a readable folder",
                ExitCode::wiki_error);
  }
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const fs::path& p = it->path();
    std::string fname = p.filename().string();
    if (!fname.empty() && fname[0] == '.') {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (it->is_symlink(ec) || !it->is_regular_file(ec)) continue;
    std::string ext = p.extension().string();
    if (ext != ".md" && ext != ".json") continue;
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) continue;
    WikiFile f;
    f.rel = p.lexically_relative(root).generic_string();
    f.path = p;
    f.size = static_cast<std::uintmax_t>(st.st_size);
    // Unix-epoch nanoseconds (file_clock's epoch is not the system clock's).
    f.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000LL + st.st_mtim.tv_nsec;
    files.push_back(std::move(f));
  }
  std::sort(files.begin(), files.end(), [](const WikiFile& a, const WikiFile& b) { return a.rel < b.rel; });
  return files;
}

WikiIndex assemble_index(const fs::path& root, const std::vector<const FileIndex*>& files) {
  std::vector<std::pair<std::string, std::string>> aliases;
  for (const FileIndex* f : files) aliases.insert(aliases.end(), f->aliases.begin(), f->aliases.end());
  // A document scoped to a declared alias ("product: H100") speaks of the alias's product.
  std::unordered_map<std::string, std::string> alias_target;  // name_key(alias) -> product
  for (const auto& [alias, target] : aliases) {
    if (name_key(target) != name_key(alias)) alias_target.emplace(name_key(alias), target);
  }
  std::unordered_map<std::string, std::string> memo;
  auto canonical = [&](const std::string& product) -> const std::string& {
    auto [it, fresh] = memo.try_emplace(product, product);
    if (fresh && !alias_target.empty()) {
      auto a = alias_target.find(name_key(product));
      if (a != alias_target.end()) it->second = a->second;
    }
    return it->second;
  };
  size_t total = 0;
  for (const FileIndex* f : files) total += f->facts.size();
  std::vector<Fact> facts;
  facts.reserve(total);
  std::vector<WikiIssue> unparsed;
  std::vector<std::pair<std::string, std::string>> archs;
  std::unordered_map<std::string, size_t> arch_at;
  for (const FileIndex* f : files) {
    for (const auto& p : f->products) {
      const std::string& name = canonical(p.name);
      auto [it, fresh] = arch_at.try_emplace(name, archs.size());
      if (fresh) archs.emplace_back(name, p.arch);
      else if (archs[it->second].second.empty()) archs[it->second].second = p.arch;
    }
    for (const Fact& fact : f->facts) {
      facts.push_back(fact);
      if (!alias_target.empty()) facts.back().product = canonical(fact.product);
    }
    unparsed.insert(unparsed.end(), f->issues.begin(), f->issues.end());
  }
  for (const auto& [alias, target] : aliases) {
    bool known = std::any_of(archs.begin(), archs.end(), [&](const auto& a) { return a.first == target; });
    if (!known) {
      unparsed.push_back(WikiIssue{"alias", "README.md", 0,
                                   "alias '" + alias + "' names product '" + target +
                                       "', which no document of the wiki describes"});
    }
  }
  WikiIndex index(root, std::move(facts), std::move(unparsed), std::move(aliases), std::move(archs));
  index.set_file_count(files.size());
  return index;
}

WikiIndex::WikiIndex(fs::path root, std::vector<Fact> facts, std::vector<WikiIssue> unparsed,
                     std::vector<std::pair<std::string, std::string>> aliases,
                     std::vector<std::pair<std::string, std::string>> archs)
    : m_root(std::move(root)),
      m_facts(std::move(facts)),
      m_unparsed(std::move(unparsed)),
      m_aliases(std::move(aliases)),
      m_archs(std::move(archs)) {
  std::unordered_set<std::string> known;
  for (const auto& a : m_archs) known.insert(a.first);
  m_by_site.reserve(m_facts.size());
  m_by_key.reserve(m_facts.size());
  for (size_t i = 0; i < m_facts.size(); ++i) {
    const Fact& f = m_facts[i];
    m_by_site[site_key(f.file, f.line)].push_back(i);
    m_by_key[f.product + '\0' + f.metric].push_back(i);
    if (known.insert(f.product).second) m_archs.emplace_back(f.product, "");
  }
}

WikiIndex WikiIndex::build(const fs::path& root) {
  std::vector<FileIndex> parsed;
  for (const auto& f : list_wiki_files(root)) {
    auto text = core::try_read_file(f.path);
    if (!text) continue;
    parsed.push_back(parse_file(f.rel, *text));
  }
  std::vector<const FileIndex*> ptrs;
  for (const auto& p : parsed) ptrs.push_back(&p);
  return assemble_index(root, ptrs);
}

std::vector<std::string> WikiIndex::products() const {
  std::vector<std::string> out;
  for (const auto& [name, arch] : m_archs) out.push_back(name);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string WikiIndex::arch(const std::string& product) const {
  for (const auto& [name, a] : m_archs) {
    if (name == product && !a.empty()) return a;
  }
  return "";
}

std::string WikiIndex::resolve_product(const std::string& name) const {
  const auto all = products();
  const std::string want = name_key(name);
  for (const auto& p : all) {
    if (!want.empty() && name_key(p) == want) return p;
  }
  for (const auto& [alias, target] : m_aliases) {
    if (want.empty() || name_key(alias) != want) continue;
    if (std::find(all.begin(), all.end(), target) != all.end()) return target;
    throw Error("platform '" + name + "' is an alias for '" + target + "' in " + (m_root / "README.md").string() +
                    ", but no document of that wiki describes '" + target +
                    "'; fix the alias table or add the product's spec document",
                ExitCode::unknown_platform);
  }
  std::vector<std::string> candidates;
  for (const auto& p : all) {
    if (!want.empty() && name_key(p).rfind(want + " ", 0) == 0) candidates.push_back(p);
  }
  if (candidates.size() == 1) return candidates.front();
  if (candidates.size() > 1) {
    throw Error("platform '" + name + "' is ambiguous: the gpu-wiki at " + m_root.string() + " describes " +
                    join(candidates, ", ", " and ") + "; pass the full name (e.g. --platform \"" +
                    candidates.front() + "\") or declare an alias in the wiki README's '## Product aliases' table",
                ExitCode::unknown_platform);
  }
  std::string known = all.empty() ? "no products at all" : join(all, ", ", ", ");
  std::vector<std::string> alias_list;
  for (const auto& [alias, target] : m_aliases) alias_list.push_back(alias + " -> " + target);
  if (!alias_list.empty()) known += " (aliases: " + join(alias_list, ", ", ", ") + ")";
  throw Error("unknown platform '" + name + "': the gpu-wiki at " + m_root.string() + " describes " + known +
                  "; pass one of these, or add the product's spec document to the wiki (--wiki DIR)",
              ExitCode::unknown_platform);
}

std::vector<Fact> WikiIndex::find(const std::string& product, const std::string& metric, bool measured) const {
  std::vector<Fact> out;
  auto it = m_by_key.find(product + '\0' + metric);
  if (it == m_by_key.end()) return out;
  for (size_t i : it->second) {
    if (m_facts[i].measured == measured) out.push_back(m_facts[i]);
  }
  return out;
}

std::vector<Fact> WikiIndex::facts_at(const std::string& file, int line) const {
  std::vector<Fact> out;
  auto it = m_by_site.find(site_key(file, line));
  if (it == m_by_site.end()) return out;
  for (size_t i : it->second) out.push_back(m_facts[i]);
  return out;
}

std::vector<WikiIssue> WikiIndex::check() const {
  std::vector<WikiIssue> issues = m_unparsed;
  for (const auto& [key, idx] : m_by_key) {
    // Datasheet facts must agree across the wiki; measured ones within one record file
    // (different dates may measure differently).
    for (size_t a = 0; a < idx.size(); ++a) {
      for (size_t b = 0; b < a; ++b) {
        const Fact& x = m_facts[idx[a]];
        const Fact& y = m_facts[idx[b]];
        if (x.measured != y.measured || (x.measured && x.file != y.file)) continue;
        auto qx = normalize(x.value, x.unit);
        auto qy = normalize(y.value, y.unit);
        if (!qx || !qy || std::fabs(qx->value - qy->value) <= 1e-9 * std::fabs(qy->value)) continue;
        issues.push_back(WikiIssue{"conflict", x.file, x.line,
                                   x.product + " " + x.metric + ": " + shown_value(x) + " here, but " +
                                       shown_value(y) + " at " + y.file + ":L" + std::to_string(y.line) +
                                       "; keep one value or name the variants apart"});
        break;
      }
    }
  }
  return issues;
}

}  // namespace kgo::wiki
