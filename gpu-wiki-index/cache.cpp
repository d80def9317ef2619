// The on-disk index cache: one text file per wiki root under $XDG_CACHE_HOME/kgo (else
// ~/.cache/kgo). Each wiki file's parse is stored with its size, mtime and SHA-256, so a load
// re-parses only files that changed. A file whose mtime is not safely older than the cache
// is re-hashed (the "racily clean" case: edited within the same clock tick).
#include <sys/stat.h>

#include <algorithm>
#include <optional>
#include <array>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "core/files.hpp"
#include "core/parallel.hpp"
#include "core/resources.hpp"
#include "gpu-wiki-index/index.hpp"
#include "gpu-wiki-index/parse.hpp"
#include "gpu-wiki-index/wiki_location.hpp"

namespace kgo::wiki {

namespace fs = std::filesystem;

namespace {

constexpr const char* k_magic = "kgo-wiki-cache 4";

struct CachedFile {
  std::uintmax_t size = 0;
  std::int64_t mtime_ns = 0;
  std::string sha;
  FileIndex index;
};

struct Cache {
  std::string parser_id;
  std::int64_t written_ns = 0;
  std::map<std::string, CachedFile> files;
};

std::optional<fs::path> cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "kgo";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "kgo";
  return std::nullopt;
}

// Changes whenever the kgo binary does, so a new parser never trusts an old parser's output.
std::string parser_id() {
  struct stat st {};
  std::string id = core::kgo_version();
  if (::stat("/proc/self/exe", &st) == 0) {
    id += "-" + std::to_string(st.st_size) + "-" + std::to_string(st.st_mtim.tv_sec) + "." +
          std::to_string(st.st_mtim.tv_nsec);
  }
  return id;
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Appends `s` with backslash, tab and line breaks escaped (the cache is one record per line,
// fields split by tabs).
void put(std::string& out, std::string_view s) {
  size_t plain = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c != '\\' && c != '\t' && c != '\n' && c != '\r') continue;
    out.append(s.data() + plain, i - plain);
    out += '\\';
    out += c == '\t' ? 't' : c == '\n' ? 'n' : c == '\r' ? 'r' : '\\';
    plain = i + 1;
  }
  out.append(s.data() + plain, s.size() - plain);
}

template <class Int>
void put_int(std::string& out, Int v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// The shortest text that reads back as exactly `v`.
void put_num(std::string& out, double v) {
  char buf[40];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

std::string unesc(std::string_view s) {
  if (s.find('\\') == std::string_view::npos) return std::string(s);
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      char n = s[++i];
      out += n == 't' ? '\t' : n == 'n' ? '\n' : n == 'r' ? '\r' : n;
    } else {
      out += s[i];
    }
  }
  return out;
}

// Splits a line on tabs into `out`; returns the field count (at most out.size()).
size_t fields(std::string_view line, std::array<std::string_view, 12>& out) {
  size_t n = 0, start = 0;
  while (n < out.size()) {
    size_t tab = line.find('\t', start);
    out[n++] = line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start);
    if (tab == std::string_view::npos) return n;
    start = tab + 1;
  }
  return n + 1;  // more fields than any record has: reported as malformed
}

long long to_ll(std::string_view v) {
  long long x = 0;
  std::from_chars(v.data(), v.data() + v.size(), x);
  return x;
}

std::string serialize(const fs::path& root, const Cache& c) {
  size_t estimate = 256;
  for (const auto& [rel, f] : c.files) estimate += 128 + rel.size() + 160 * f.index.facts.size();
  std::string out;
  out.reserve(estimate);
  out += k_magic;
  out += '\t';
  put(out, c.parser_id);
  out += '\t';
  put_int(out, c.written_ns);
  out += "\nroot\t";
  put(out, root.string());
  out += '\n';
  auto field = [&out](std::string_view s) {
    out += '\t';
    put(out, s);
  };
  auto number = [&out](auto v) {
    out += '\t';
    put_int(out, v);
  };
  for (const auto& [rel, f] : c.files) {
    out += "file";
    field(rel);
    number(f.size);
    number(f.mtime_ns);
    field(f.sha);
    number(f.index.facts.size());
    out += '\n';
    for (const auto& p : f.index.products) {
      out += 'p';
      field(p.name);
      field(p.arch);
      number(p.line);
      number(p.notes ? 1 : 0);
      out += '\n';
    }
    for (const auto& [a, t] : f.index.aliases) {
      out += 'a';
      field(a);
      field(t);
      out += '\n';
    }
    for (const auto& i : f.index.issues) {
      out += 'i';
      field(i.kind);
      number(i.line);
      field(i.message);
      out += '\n';
    }
    for (const auto& x : f.index.facts) {
      out += 'f';
      field(x.product);
      field(x.metric);
      field(x.label);
      out += '\t';
      put_num(out, x.value);
      field(x.unit);
      field(x.value_text);
      out += x.approximate ? "\t1" : "\t0";
      out += x.measured ? "\t1" : "\t0";
      field(x.core);
      number(x.line);
      field(x.kind);
      out += '\n';
    }
  }
  return out;
}

using KeepProduct = std::function<bool(std::string_view)>;

// nullopt when the cache is absent, unreadable, for another root or another parser. With
// `keep`, only the facts of products it accepts are read (and no issues).
std::optional<Cache> deserialize(const std::string& text, const fs::path& root, const std::string& pid,
                                 const KeepProduct* keep = nullptr) {
  Cache c;
  CachedFile* cur = nullptr;
  std::string rel;
  size_t start = 0;
  int n = 0;
  std::array<std::string_view, 12> f;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    std::string_view line(text.data() + start, nl - start);
    start = nl + 1;
    size_t k = fields(line, f);
    ++n;
    if (n == 1) {
      if (k != 3 || f[0] != k_magic || unesc(f[1]) != pid) return std::nullopt;
      c.parser_id = pid;
      c.written_ns = to_ll(f[2]);
    } else if (n == 2) {
      if (k != 2 || f[0] != "root" || unesc(f[1]) != root.string()) return std::nullopt;
    } else if (f[0] == "file" && k == 6) {
      rel = unesc(f[1]);
      cur = &c.files[rel];
      cur->size = static_cast<std::uintmax_t>(to_ll(f[2]));
      cur->mtime_ns = to_ll(f[3]);
      cur->sha = std::string(f[4]);
      cur->index.facts.reserve(static_cast<size_t>(std::min(to_ll(f[5]), 100000LL)));
    } else if (!cur) {
      return std::nullopt;
    } else if (f[0] == "f" && k == 12) {
      if (keep && !(*keep)(f[1])) continue;
      Fact& x = cur->index.facts.emplace_back();
      x.product = unesc(f[1]);
      x.metric = unesc(f[2]);
      x.label = unesc(f[3]);
      std::from_chars(f[4].data(), f[4].data() + f[4].size(), x.value);
      x.unit = unesc(f[5]);
      x.value_text = unesc(f[6]);
      x.approximate = f[7] == "1";
      x.measured = f[8] == "1";
      x.core = unesc(f[9]);
      x.line = static_cast<int>(to_ll(f[10]));
      x.kind = unesc(f[11]);
      x.file = rel;
    } else if (f[0] == "p" && k == 5) {
      cur->index.products.push_back(
          ProductDecl{unesc(f[1]), unesc(f[2]), static_cast<int>(to_ll(f[3])), rel, f[4] == "1"});
    } else if (f[0] == "a" && k == 3) {
      cur->index.aliases.emplace_back(unesc(f[1]), unesc(f[2]));
    } else if (f[0] == "i" && k == 4) {
      if (keep) continue;
      cur->index.issues.push_back(WikiIssue{unesc(f[1]), rel, static_cast<int>(to_ll(f[2])), unesc(f[3])});
    } else {
      return std::nullopt;
    }
  }
  if (n < 2) return std::nullopt;
  return c;
}

// The products and aliases a cache declares, read without reading its facts.
FileIndex declarations(const std::string& text) {
  FileIndex out;
  std::array<std::string_view, 12> f;
  for (size_t start = 0; start < text.size();) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    std::string_view line(text.data() + start, nl - start);
    start = nl + 1;
    if (line.size() < 2 || line[1] != '\t' || (line[0] != 'p' && line[0] != 'a')) continue;
    size_t k = fields(line, f);
    if (line[0] == 'p' && k == 5) {
      out.products.push_back(ProductDecl{unesc(f[1]), unesc(f[2]), 0, "", f[4] == "1"});
    } else if (line[0] == 'a' && k == 3) {
      out.aliases.emplace_back(unesc(f[1]), unesc(f[2]));
    }
  }
  return out;
}

// True when cache entry `e` still describes `f`: same size and mtime, and `f` not edited within 2 s
// before the cache was written (such an edit may share the cache's mtime tick).
bool unchanged(const Cache& c, const CachedFile& e, const WikiFile& f) {
  return e.size == f.size && e.mtime_ns == f.mtime_ns && f.mtime_ns < c.written_ns - 2'000'000'000LL;
}

// True when every wiki file is unchanged since the cache was written and none is new or gone.
bool cache_current(const Cache& c, const std::vector<WikiFile>& files) {
  if (files.size() != c.files.size()) return false;
  for (const auto& f : files) {
    auto it = c.files.find(f.rel);
    if (it == c.files.end() || !unchanged(c, it->second, f)) return false;
  }
  return true;
}

}  // namespace

fs::path index_cache_path(const fs::path& root) {
  auto dir = cache_dir();
  if (!dir) return {};
  return *dir / ("wiki-index-" + core::sha256_hex(root.string()).substr(0, 24) + ".tsv");
}

WikiIndex WikiIndex::load(const WikiLocation& wiki) {
  const fs::path& root = wiki.root;
  fs::path path = index_cache_path(root);
  const std::string pid = parser_id();
  std::optional<Cache> old;
  if (!path.empty()) {
    if (auto text = core::try_read_file(path)) old = deserialize(*text, root, pid);
  }
  Cache fresh;
  fresh.parser_id = pid;
  bool dirty = !old;
  const std::vector<WikiFile> files = list_wiki_files(root);
  // Unchanged files come from the cache; the others are read, hashed and parsed, each on its own.
  std::vector<CachedFile*> prev(files.size(), nullptr);
  std::vector<std::optional<CachedFile>> entries(files.size());
  std::vector<size_t> todo;
  for (size_t i = 0; i < files.size(); ++i) {
    if (old) {
      auto it = old->files.find(files[i].rel);
      if (it != old->files.end()) prev[i] = &it->second;
    }
    if (prev[i] && unchanged(*old, *prev[i], files[i])) entries[i] = std::move(*prev[i]);
    else todo.push_back(i);
  }
  std::vector<char> parsed_fresh(files.size(), 0);
  core::parallel_for(todo.size(), [&](size_t k) {
    size_t i = todo[k];
    const WikiFile& f = files[i];
    auto text = core::try_read_file(f.path);
    if (!text) return;
    CachedFile entry;
    entry.size = f.size;
    entry.mtime_ns = f.mtime_ns;
    entry.sha = core::sha256_hex(*text);
    if (prev[i] && prev[i]->sha == entry.sha) {
      entry.index = std::move(prev[i]->index);
    } else {
      entry.index = parse_file(f.rel, *text);
      parsed_fresh[i] = 1;
    }
    entries[i] = std::move(entry);
  });
  std::string manifest;  // as wiki_fingerprint() builds it
  for (size_t i = 0; i < files.size(); ++i) {
    manifest += files[i].rel + " " + (entries[i] ? entries[i]->sha : core::sha256_hex("")) + "\n";
    if (!entries[i]) continue;
    bool from_todo = !prev[i] || !unchanged(*old, *prev[i], files[i]);
    if (from_todo) dirty = true;  // parsed, or the same content under a new size or mtime
    fresh.files.emplace(files[i].rel, std::move(*entries[i]));
  }
  if (old && old->files.size() != fresh.files.size()) dirty = true;
  if (dirty && !path.empty()) {
    try {
      fs::create_directories(path.parent_path());
      fresh.written_ns = now_ns();
      core::write_file_atomic(path, serialize(root, fresh));
    } catch (const std::exception&) {
      // An unwritable cache only costs speed; the index itself is complete.
    }
  }
  std::vector<FileIndex> parsed;
  parsed.reserve(fresh.files.size());
  for (auto& [rel, f] : fresh.files) parsed.push_back(std::move(f.index));
  WikiIndex index = assemble_index(root, std::move(parsed));
  index.set_fingerprint("sha256:" + core::sha256_hex(manifest));
  return index;
}

WikiIndex WikiIndex::load_product(const WikiLocation& wiki, const std::string& name) {
  const fs::path& root = wiki.root;
  fs::path path = index_cache_path(root);
  std::optional<std::string> text = path.empty() ? std::nullopt : core::try_read_file(path);
  if (!text) return load(wiki);
  // Resolve the name against the declared products and aliases first, then read only the facts
  // of that product (its own name or an alias of it; assemble_index maps aliases).
  // The declarations are joined as assemble_index joins them (aliases, spellings of one SKU,
  // products that notes restate), so the product and its other names are the full load's.
  std::vector<FileIndex> decls;
  decls.push_back(declarations(*text));
  WikiIndex names = assemble_index(root, std::move(decls));
  std::string product;
  try {
    product = names.resolve_product(name);
  } catch (const std::exception&) {
    return load(wiki);  // the cache may predate the product; the full load decides
  }
  std::unordered_set<std::string> wanted = {product_key(product)};
  for (const auto& [alias, target] : names.aliases()) {
    if (target == product) wanted.insert(product_key(alias));
  }
  std::unordered_map<std::string, bool> seen;
  KeepProduct keep = [&](std::string_view raw) {
    auto it = seen.find(std::string(raw));
    if (it == seen.end()) it = seen.emplace(std::string(raw), wanted.count(product_key(unesc(raw))) > 0).first;
    return it->second;
  };
  std::optional<Cache> old = deserialize(*text, root, parser_id(), &keep);
  if (!old || !cache_current(*old, list_wiki_files(root))) return load(wiki);
  std::vector<FileIndex> parsed;
  parsed.reserve(old->files.size());
  std::string manifest;  // every file unchanged: the cached hashes are the files' (as wiki_fingerprint)
  for (auto& [rel, f] : old->files) {
    manifest += rel + " " + f.sha + "\n";
    parsed.push_back(std::move(f.index));
  }
  WikiIndex index = assemble_index(root, std::move(parsed));
  index.set_fingerprint("sha256:" + core::sha256_hex(manifest));
  return index;
}

std::string wiki_fingerprint(const fs::path& root) {
  // Hashes come from the index cache where a file is unchanged since it was written; a cache read
  // without its facts is far cheaper than hashing every file again.
  std::optional<Cache> cache;
  fs::path path = index_cache_path(root);
  if (!path.empty()) {
    if (auto text = core::try_read_file(path)) {
      KeepProduct none = [](std::string_view) { return false; };
      cache = deserialize(*text, root, parser_id(), &none);
    }
  }
  std::string manifest;
  for (const auto& f : list_wiki_files(root)) {
    std::string sha;
    if (cache) {
      auto it = cache->files.find(f.rel);
      if (it != cache->files.end() && unchanged(*cache, it->second, f)) sha = it->second.sha;
    }
    if (sha.empty()) sha = core::sha256_hex(core::try_read_file(f.path).value_or(""));
    manifest += f.rel + " " + sha + "\n";
  }
  return "sha256:" + core::sha256_hex(manifest);
}

}  // namespace kgo::wiki
