#pragma once
// Verification of one cited claim against a gpu-wiki: the path stays inside the wiki, the file
// and line exist, and that line states the value (after unit normalization) for the product
// and the metric (dense vs sparse). Failures throw Error(citation_rejected) saying what did not
// match and what the line does say.
#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpu-wiki-index/index.hpp"
#include "specs/citation.hpp"
#include "specs/registry.hpp"

namespace kgo::specs {

// A wiki opened for verification: its index plus every cited file read and hashed once.
class WikiView {
 public:
  explicit WikiView(wiki::WikiIndex index);

  const wiki::WikiIndex& index() const { return m_index; }
  const std::filesystem::path& root() const { return m_root; }

  struct File {
    std::string rel;                 // wiki-relative path after resolving symlinks (index key)
    std::vector<std::string> lines;
    std::string sha256;              // of the whole file
  };
  // The file `rel` names, checked: lexically safe, present, a regular file, and not leaving the
  // wiki through a symlink. Throws Error(citation_rejected) naming which check failed.
  const File& file(const std::string& rel);

 private:
  wiki::WikiIndex m_index;
  std::filesystem::path m_root;  // canonical
  std::unordered_map<std::string, File> m_files;
};

struct Claim {
  std::string metric;      // canonical; "_sparse" suffix for the sparse figure
  std::string product;     // the workspace's platform (canonical)
  double value = 0;
  std::string value_text;  // as written
  std::string unit;        // as written; "" for counts
  Citation citation;
};

struct Verified {
  wiki::Fact fact;      // the fact on the cited line that matched
  Citation citation;    // always the `:L<line>` form (a `:<section>` is resolved)
  std::string line_text;
  std::string line_sha256;
  std::string file_sha256;
  wiki::Quantity quantity;  // the claimed value in base units
};

// `:<section>` resolves to the first line under the heading named `section` (up to the next
// heading of the same or higher level) that states `metric` for `product`. Headings match
// case-insensitively with markdown emphasis removed; the first heading (in file order) whose span
// holds such a line wins. Throws Error(citation_rejected) listing the file's headings when none.
int resolve_section(WikiView& wiki, const std::string& file, const std::string& section,
                    const std::string& metric, const std::string& product);

Verified verify_claim(WikiView& wiki, const Claim& claim);

// The registry entry for a verified claim (hashes, line text, base-unit value, timestamp).
SpecEntry make_entry(const Verified& v, const Claim& claim, const std::string& label);

// "bf16_tensor" <-> "bf16_tensor_sparse".
std::string other_qualifier(const std::string& metric);

}  // namespace kgo::specs
