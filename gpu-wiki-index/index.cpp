#include "gpu-wiki-index/index.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/strings.hpp"
#include "gpu-wiki-index/metrics.hpp"
#include "gpu-wiki-index/names.hpp"
#include "gpu-wiki-index/parse.hpp"

namespace kgo::wiki {

namespace fs = std::filesystem;

std::string product_key(const std::string& name) {
  std::string out;
  for (char c : canonical_product_name(name)) {
    char d = (c == '-' || c == '_') ? ' ' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (d == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += d;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

namespace {

// Position of a canonical metric in canonical_metrics() (facts only ever hold canonical metrics).
std::uint32_t metric_id(const std::string& metric) {
  static const std::unordered_map<std::string, std::uint32_t> ids = [] {
    std::unordered_map<std::string, std::uint32_t> m;
    for (const auto& name : canonical_metrics()) m.emplace(name, static_cast<std::uint32_t>(m.size()));
    return m;
  }();
  auto it = ids.find(metric);
  return it == ids.end() ? 0xffffffffu : it->second;
}

std::string shown_value(const Fact& f) {
  std::string v = std::to_string(f.value);
  if (v.find('.') != std::string::npos) {
    v.erase(v.find_last_not_of('0') + 1);
    if (v.back() == '.') v.pop_back();
  }
  return (f.approximate ? "~" : "") + v + (f.unit.empty() ? "" : " " + f.unit);
}

}  // namespace

namespace {

// Walks with openat/fstatat relative to each directory, so no stat repeats the whole path walk
// (the warm lookup's largest cost on a 1,000-file wiki). Hidden entries and symlinks are skipped.
void walk(int dir_fd, const std::string& prefix, const fs::path& root, std::vector<WikiFile>& out) {
  DIR* dir = ::fdopendir(dir_fd);
  if (!dir) {
    ::close(dir_fd);
    return;
  }
  while (dirent* e = ::readdir(dir)) {
    std::string_view name = e->d_name;
    if (name.empty() || name[0] == '.') continue;
    struct stat st {};
    if (::fstatat(::dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      int sub = ::openat(::dirfd(dir), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub >= 0) walk(sub, prefix + std::string(name) + "/", root, out);
      continue;
    }
    bool wanted = wiki_file_name(name);
    if (!S_ISREG(st.st_mode) || !wanted) continue;
    WikiFile f;
    f.rel = prefix + std::string(name);
    f.path = root / f.rel;
    f.size = static_cast<std::uintmax_t>(st.st_size);
    f.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000LL + st.st_mtim.tv_nsec;
    out.push_back(std::move(f));
  }
  ::closedir(dir);
}

}  // namespace

std::vector<WikiFile> list_wiki_files(const fs::path& root) {
  int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    throw Error("cannot read the gpu-wiki " + root.string() + ": " + std::strerror(errno) +
                    "; pass --wiki DIR naming a readable folder",
                ExitCode::wiki_error);
  }
  std::vector<WikiFile> files;
  walk(fd, "", root, files);
  std::sort(files.begin(), files.end(), [](const WikiFile& a, const WikiFile& b) { return a.rel < b.rel; });
  return files;
}

namespace {

// Maps other spellings of a declared SKU onto it (alias_target, and `aliases` so `wiki products`
// lists them): two spellings of one SKU ("GeForce RTX 4090" in a table, "RTX 4090" in a record)
// are one product, named as first declared; a name only notes use ("H100 80GB" in a tutorial's
// table) is the spec sheet's SKU when it fits exactly one. Returns the notes names that fit several
// spec-sheet SKUs, or leave out a part one states: never guessed, they are no products.
std::unordered_set<std::string> join_spellings(const std::vector<FileIndex>& files,
                                               std::vector<std::pair<std::string, std::string>>& aliases,
                                               std::unordered_map<std::string, std::string>& alias_target) {
  std::unordered_map<std::string, std::string> sku_name;  // describe(read_product_name) -> name
  std::vector<std::pair<std::string, ProductName>> sheets;  // spec-sheet products, read
  std::unordered_map<std::string, std::vector<size_t>> by_model;  // model -> sheets
  std::unordered_set<std::string> dropped, sheet_keys;
  auto alias = [&](const std::string& name, const std::string& target) {
    if (product_key(target) != product_key(name) && alias_target.emplace(product_key(name), target).second) {
      aliases.emplace_back(name, target);
    }
  };
  for (bool notes : {false, true}) {
    for (const auto& f : files) {
      for (const auto& p : f.products) {
        std::string key = product_key(p.name);
        if (p.notes != notes || alias_target.count(key) || (notes && sheet_keys.count(key))) continue;
        auto n = read_product_name(p.name);
        if (!notes) sheet_keys.insert(key);
        if (!n || n->model.empty()) continue;
        if (notes) {
          std::vector<std::string> full;
          bool partial = false;
          for (const auto& model : n->models) {
            for (size_t i : by_model[model]) {
              NameFit fitted = fit(*n, sheets[i].second);
              if (fitted == NameFit::full && std::find(full.begin(), full.end(), sheets[i].first) == full.end()) {
                full.push_back(sheets[i].first);
              }
              partial = partial || fitted == NameFit::partial;
            }
          }
          if (full.size() == 1) alias(p.name, full.front());
          if (full.size() > 1 || (full.empty() && partial)) dropped.insert(key);
          if (!full.empty() || partial) continue;
        }
        auto [it, fresh] = sku_name.try_emplace(describe(*n), p.name);
        if (!fresh) alias(p.name, it->second);
        else if (!notes) {
          for (const auto& model : n->models) by_model[model].push_back(sheets.size());
          sheets.emplace_back(p.name, *n);
        }
      }
    }
  }
  return dropped;
}

}  // namespace

WikiIndex assemble_index(const fs::path& root, std::vector<FileIndex> files) {
  std::vector<std::pair<std::string, std::string>> aliases;
  for (const auto& f : files) aliases.insert(aliases.end(), f.aliases.begin(), f.aliases.end());
  // A document scoped to a declared alias ("product: H100") speaks of the alias's product.
  std::unordered_map<std::string, std::string> alias_target;  // product_key(alias) -> product
  for (const auto& [alias, target] : aliases) {
    if (product_key(target) != product_key(alias)) alias_target.emplace(product_key(alias), target);
  }
  std::unordered_set<std::string> dropped = join_spellings(files, aliases, alias_target);
  std::unordered_map<std::string, std::string> memo;
  auto canonical = [&](const std::string& product) -> const std::string& {
    auto [it, fresh] = memo.try_emplace(product, product);
    if (fresh && !alias_target.empty()) {
      auto a = alias_target.find(product_key(product));
      if (a != alias_target.end()) it->second = a->second;
    }
    return it->second;
  };
  size_t total = 0;
  for (const auto& f : files) total += f.facts.size();
  std::vector<Fact> facts;
  facts.reserve(total);
  std::vector<WikiIssue> unparsed;
  std::vector<std::pair<std::string, std::string>> archs;
  std::unordered_map<std::string, size_t> arch_at;
  std::vector<ProductSite> definitions;
  for (auto& f : files) {
    for (const auto& p : f.products) {
      if (p.notes && dropped.count(product_key(p.name))) continue;
      const std::string& name = canonical(p.name);
      definitions.push_back(ProductSite{name, p.file, p.line});
      auto [it, fresh] = arch_at.try_emplace(name, archs.size());
      if (fresh) archs.emplace_back(name, p.arch);
      else if (archs[it->second].second.empty()) archs[it->second].second = p.arch;
    }
    unparsed.insert(unparsed.end(), f.issues.begin(), f.issues.end());
  }
  // Facts of products no document defines are passing mentions in notes, not products.
  std::optional<std::string> last;  // a file's facts mostly share one product: decide it once
  bool last_kept = false;
  for (auto& f : files) {
    for (Fact& fact : f.facts) {
      if (!alias_target.empty()) fact.product = canonical(fact.product);
      if (last != fact.product) {
        last = fact.product;
        last_kept = arch_at.count(fact.product) > 0;
      }
      if (last_kept) facts.push_back(std::move(fact));
    }
  }
  for (const auto& [alias, target] : aliases) {
    if (!arch_at.count(target)) {
      unparsed.push_back(WikiIssue{"alias", "README.md", 0,
                                   "alias '" + alias + "' names product '" + target +
                                       "', which no document of the wiki describes"});
    }
  }
  WikiIndex index(root, std::move(facts), std::move(unparsed), std::move(aliases), std::move(archs));
  index.set_file_count(files.size());
  index.set_definitions(std::move(definitions));
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
  m_by_key.reserve(m_facts.size());
  m_by_site.reserve(m_facts.size());
  auto id = [](std::unordered_map<std::string, std::uint32_t>& ids, const std::string& s) {
    return ids.try_emplace(s, static_cast<std::uint32_t>(ids.size())).first->second;
  };
  const Fact* prev = nullptr;  // neighbours mostly share product and file: look each up once
  std::uint32_t product = 0, file = 0;
  for (size_t i = 0; i < m_facts.size(); ++i) {
    const Fact& f = m_facts[i];
    auto n = static_cast<std::uint32_t>(i);
    if (!prev || prev->product != f.product) {
      product = id(m_product_ids, f.product);
      if (known.insert(f.product).second) m_archs.emplace_back(f.product, "");
    }
    if (!prev || prev->file != f.file) file = id(m_file_ids, f.file);
    prev = &f;
    m_by_key.emplace_back(std::uint64_t{product} << 32 | metric_id(f.metric), n);
    m_by_site.emplace_back(std::uint64_t{file} << 32 | static_cast<std::uint32_t>(f.line), n);
  }
  std::sort(m_by_key.begin(), m_by_key.end());
  std::sort(m_by_site.begin(), m_by_site.end());
}

std::vector<size_t> WikiIndex::matching(const std::vector<std::pair<std::uint64_t, std::uint32_t>>& table,
                                        std::uint64_t key) const {
  std::vector<size_t> out;
  auto it = std::lower_bound(table.begin(), table.end(), std::make_pair(key, std::uint32_t{0}));
  for (; it != table.end() && it->first == key; ++it) out.push_back(it->second);
  return out;
}

WikiIndex WikiIndex::build(const fs::path& root) {
  std::vector<FileIndex> parsed;
  for (const auto& f : list_wiki_files(root)) {
    auto text = core::try_read_file(f.path);
    if (!text) continue;
    parsed.push_back(parse_file(f.rel, *text));
  }
  return assemble_index(root, std::move(parsed));
}

std::vector<std::string> WikiIndex::products() const {
  std::vector<std::string> out;
  for (const auto& [name, arch] : m_archs) out.push_back(name);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<ProductSite> WikiIndex::definitions(const std::string& product) const {
  std::vector<ProductSite> out;
  for (const auto& d : m_definitions) {
    if (d.product == product) out.push_back(d);
  }
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
  const std::string want = product_key(name);
  std::vector<std::string> keys;
  keys.reserve(all.size());
  for (const auto& p : all) keys.push_back(product_key(p));
  for (size_t i = 0; i < all.size(); ++i) {
    if (!want.empty() && keys[i] == want) return all[i];
  }
  for (const auto& [alias, target] : m_aliases) {
    if (want.empty() || product_key(alias) != want) continue;
    if (std::find(all.begin(), all.end(), target) != all.end()) return target;
    throw Error("platform '" + name + "' is an alias for '" + target + "' in " + (m_root / "README.md").string() +
                    ", but no document of that wiki describes '" + target +
                    "'; fix the alias table or add the product's spec document",
                ExitCode::unknown_platform);
  }
  // Spellings of one SKU ("H100-SXM5-80GB", "H100 80GB HBM3" for "H100 SXM"): the parts the user
  // stated must all be stated alike by exactly one product; a product that leaves one out may be
  // another SKU and is named, never chosen.
  std::vector<std::string> candidates, partial;
  if (auto wanted = read_product_name(name)) {
    for (const auto& p : all) {
      auto defined = read_product_name(p);
      NameFit f = defined ? fit(*wanted, *defined) : NameFit::none;
      if (f == NameFit::full) candidates.push_back(p);
      if (f == NameFit::partial) partial.push_back(p);
    }
    if (candidates.empty() && !partial.empty()) {
      throw Error("platform '" + name + "' names " + describe(*wanted) + ", but the gpu-wiki at " + m_root.string() +
                      " describes only " + join(partial, ", ", " and ") +
                      ", whose name does not state that form factor or edition; kgo does not guess between SKUs: "
                      "pass --platform \"" + partial.front() + "\" if that is your card, or declare an alias in the "
                      "wiki README's '## Product aliases' table",
                  ExitCode::unknown_platform);
    }
  }
  for (size_t i = 0; i < all.size() && candidates.empty(); ++i) {
    if (!want.empty() && keys[i].rfind(want + " ", 0) == 0) candidates.push_back(all[i]);
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
  auto p = m_product_ids.find(product);
  if (p == m_product_ids.end() || !is_canonical_metric(metric)) return out;
  for (size_t i : matching(m_by_key, std::uint64_t{p->second} << 32 | metric_id(metric))) {
    if (m_facts[i].measured == measured && m_facts[i].kind != "notes") out.push_back(m_facts[i]);
  }
  return out;
}

std::vector<Fact> WikiIndex::facts_at(const std::string& file, int line) const {
  std::vector<Fact> out;
  auto f = m_file_ids.find(file);
  if (f == m_file_ids.end() || line < 1) return out;
  for (size_t i : matching(m_by_site, std::uint64_t{f->second} << 32 | static_cast<std::uint32_t>(line))) {
    out.push_back(m_facts[i]);
  }
  return out;
}

std::vector<WikiIssue> WikiIndex::check() const {
  std::vector<WikiIssue> issues = m_unparsed;
  for (size_t start = 0; start < m_by_key.size();) {
    size_t end = start;
    std::vector<size_t> idx;
    while (end < m_by_key.size() && m_by_key[end].first == m_by_key[start].first) idx.push_back(m_by_key[end++].second);
    start = end;
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
