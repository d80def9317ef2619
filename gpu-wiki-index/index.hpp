#pragma once
// The gpu-wiki index: every hardware fact a wiki states, with product, metric, value, unit,
// qualifiers and file:line. Built from markdown (and JSON record files); cached on disk,
// keyed by file hashes. Contract shared by specs/, roofline/ and profiling/.
#include <cstdint>
#include <filesystem>
#include <unordered_map>
#include <optional>
#include <string>
#include <vector>

#include "gpu-wiki-index/wiki_location.hpp"

namespace kgo::wiki {

struct Fact {
  std::string product;     // canonical product name, e.g. "H100 SXM"
  std::string metric;      // canonical metric, e.g. "bf16_tensor"; sparse ones end in "_sparse"
  std::string label;       // the wiki's own label, e.g. "FP16 / BF16 (Tensor Core)"
  double value = 0;        // the number as written ("1,978.9" -> 1978.9, "~148" -> 148)
  std::string unit;        // as written or from the column header: "TFLOPS", "TB/s", "KB", ...
  std::string value_text;  // the raw cell / value text
  bool approximate = false;  // written with "~"
  bool measured = false;     // from a measured document (kgo ceiling --record), not a datasheet
  // "datasheet" (a spec document), "measured" (a measured-maxima document) or "notes" (a
  // tutorial or notes document that restates a spec sheet's product; never used by spec auto).
  std::string kind = "datasheet";
  std::string core;          // "tensor", "cuda" or ""
  std::string file;          // wiki-relative path
  int line = 0;              // 1-based
};

// A value in base units: bytes/s, FLOP/s (or OP/s), bytes, Hz, W, s or a plain count.
struct Quantity {
  double value = 0;
  std::string dimension;  // "bytes_per_s", "flop_per_s", "bytes", "hz", "watts", "seconds", "count"
};

// Converts `value unit` to base units. nullopt when the unit is unknown. Rates, clocks and power take
// decimal prefixes ("3.35 TB/s" -> 3.35e12 bytes_per_s). A capacity in bytes (shared memory, L1, L2,
// register file, HBM) takes binary ones however it is spelled: "228 KB" = "228 KiB" = 233,472 bytes,
// as JEDEC's memory standards define KB/MB/GB and as the CUDA Programming Guide's "228 KB" of shared
// memory per SM is the 233,472 bytes cudaDevAttrMaxSharedMemoryPerMultiprocessor reports on an H100.
std::optional<Quantity> normalize(double value, const std::string& unit);

// normalize() as kgo read capacities before it took them as binary ("228 KB" -> 228,000 bytes); only
// to recognise a specs.json entry kgo wrote then. Every other quantity is normalize()'s.
std::optional<Quantity> normalize_decimal_capacity(double value, const std::string& unit);

// Where a document defines a product: its heading, title, front matter, table header or row,
// record or dump line.
struct ProductSite {
  std::string product;
  std::string file;  // wiki-relative
  int line = 0;
};

struct WikiIssue {
  std::string kind;     // "unparsed", "conflict" or "alias" (an alias naming no known product)
  std::string file;
  int line = 0;
  std::string message;
};

// Where load() caches the index of the wiki at `root`; empty when no cache directory is known.
std::filesystem::path index_cache_path(const std::filesystem::path& root);

class WikiIndex {
 public:
  // Parses every .md / .json file under `root` (no cache).
  static WikiIndex build(const std::filesystem::path& root);
  // Like build(), but reuses the on-disk cache under $XDG_CACHE_HOME/kgo (else ~/.cache/kgo)
  // when every file hash still matches.
  static WikiIndex load(const WikiLocation& wiki);
  // Like load(), but keeps only the facts of the product `name` resolves to: products(), arch()
  // and aliases() stay complete, facts() and check() cover that product alone. One-product
  // questions (`kgo wiki lookup`) use it to answer within 20 ms on a 1,000-file wiki.
  // Throws like resolve_product().
  static WikiIndex load_product(const WikiLocation& wiki, const std::string& name);

  const std::filesystem::path& root() const { return m_root; }
  const std::vector<Fact>& facts() const { return m_facts; }

  // Canonical product names, sorted.
  std::vector<std::string> products() const;
  // Maps a user's name (declared alias, bare name such as "H100", any case) to one canonical
  // product. Throws Error(unknown_platform) listing the known products, or, when ambiguous,
  // naming the candidates. Never picks a neighbour (H200 never resolves to H100).
  std::string resolve_product(const std::string& name) const;
  // Architecture family of a product ("Hopper", "CDNA3", ...), or "" when the wiki does not say.
  std::string arch(const std::string& product) const;

  // Facts for exactly this product and canonical metric (a metric is dense unless it ends in
  // "_sparse"); `measured` selects facts from measured documents instead of datasheets. Facts
  // that tutorials and notes restate are never returned (facts_at() still shows them).
  std::vector<Fact> find(const std::string& product, const std::string& metric,
                         bool measured = false) const;
  // Facts stated on `file` (wiki-relative) at `line`.
  std::vector<Fact> facts_at(const std::string& file, int line) const;
  // Spec-looking lines that could not be parsed, and conflicting values per product+metric.
  std::vector<WikiIssue> check() const;

  // Declared aliases (alias -> product), products with their arch (arch may be ""), and the
  // lines the parser could not read (check() adds conflicts to these).
  const std::vector<std::pair<std::string, std::string>>& aliases() const { return m_aliases; }
  const std::vector<std::pair<std::string, std::string>>& archs() const { return m_archs; }
  const std::vector<WikiIssue>& unparsed() const { return m_unparsed; }
  // Number of files the index was built from.
  size_t file_count() const { return m_file_count; }
  void set_file_count(size_t n) { m_file_count = n; }
  // Every place a document defines `product` (aliases mapped), in file order.
  std::vector<ProductSite> definitions(const std::string& product) const;
  void set_definitions(std::vector<ProductSite> sites) { m_definitions = std::move(sites); }
  // wiki_fingerprint() of the files load() read ("" when built otherwise), so a command that
  // names its wiki does not hash or list it twice.
  const std::string& fingerprint() const { return m_fingerprint; }
  void set_fingerprint(std::string fp) { m_fingerprint = std::move(fp); }

  // Used by build() and the cache loader.
  WikiIndex(std::filesystem::path root, std::vector<Fact> facts,
            std::vector<WikiIssue> unparsed = {},
            std::vector<std::pair<std::string, std::string>> aliases = {},
            std::vector<std::pair<std::string, std::string>> archs = {});

 private:
  std::filesystem::path m_root;
  std::vector<Fact> m_facts;
  std::vector<WikiIssue> m_unparsed;
  std::vector<std::pair<std::string, std::string>> m_aliases;  // alias -> product
  std::vector<std::pair<std::string, std::string>> m_archs;    // product -> arch
  size_t m_file_count = 0;
  std::vector<ProductSite> m_definitions;
  std::string m_fingerprint;
  // Lookup tables over m_facts: interned ids, then (key, fact index) pairs sorted by key.
  std::unordered_map<std::string, std::uint32_t> m_product_ids, m_file_ids;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> m_by_key;   // product id, metric id
  std::vector<std::pair<std::uint64_t, std::uint32_t>> m_by_site;  // file id, line
  std::vector<size_t> matching(const std::vector<std::pair<std::uint64_t, std::uint32_t>>& table,
                               std::uint64_t key) const;
};

}  // namespace kgo::wiki
