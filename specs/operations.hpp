#pragma once
// The `kgo spec` operations on a workspace's registry: add a cited spec, register what the
// roofline needs (auto), record a gap (unknown), remove. Each mutation runs under the
// workspace lock, verifies against the wiki, saves specs.json + README and commits both.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gpu-wiki-index/wiki_location.hpp"
#include "specs/registry.hpp"
#include "specs/verify.hpp"

namespace kgo::specs {

// The wiki a workspace's specs are checked against: `--wiki` when given, else the wiki the
// registry (or kgo.json) recorded when it still exists, else wiki::locate_wiki's default.
wiki::WikiLocation workspace_wiki(const std::filesystem::path& workspace,
                                  const std::optional<std::filesystem::path>& explicit_dir);

// Opens the wiki's index (cached) for verification.
WikiView open_wiki(const wiki::WikiLocation& location);

// The canonical metric free text names; throws Error(unknown_metric) listing the canonical names.
std::string metric_for_text(const std::string& text, const std::string& dtype = "");

// Products the text names (declared aliases, canonical names, bare names such as "H100").
std::vector<std::string> products_in_text(const std::string& text, const wiki::WikiIndex& index);

// The compute metrics the roofline needs for a dtype (fp32 always included).
std::vector<std::string> compute_metrics_for_dtype(const std::string& dtype);

struct AddResult {
  SpecEntry entry;
  bool replaced = false;  // an entry for the same metric (and kind) was there before
  // Other lines of the wiki stating a different value for the same product and metric (any
  // document kind), each naming both lines; the entry is still registered.
  std::vector<std::string> conflicts;
  wiki::WikiIdentity wiki;  // the wiki it was verified against
};
AddResult add_spec(const std::filesystem::path& workspace, const std::optional<std::filesystem::path>& wiki_dir,
                   const std::string& statement);

struct AutoResult {
  std::vector<SpecEntry> registered;   // datasheet and measured entries written
  std::vector<std::string> unknown;    // needed metrics the wiki does not state (recorded UNKNOWN)
  std::vector<std::string> conflicts;  // needed metrics whose datasheet facts disagree (not registered)
  // For each registered datasheet metric: the line chosen and its kind, and any notes or
  // measured lines stating another value that were passed over (datasheet wins).
  std::vector<std::string> choices;
  wiki::WikiIdentity wiki;  // the wiki the specs were read from
};
// `extra_dtypes` adds what a roofline for those dtypes needs (their compute peaks).
AutoResult auto_specs(const std::filesystem::path& workspace, const std::optional<std::filesystem::path>& wiki_dir,
                      const std::vector<std::string>& extra_dtypes = {});

struct UnknownResult {
  SpecEntry entry;
  wiki::WikiIdentity wiki;  // the wiki that was searched for the metric
};
UnknownResult record_unknown(const std::filesystem::path& workspace,
                             const std::optional<std::filesystem::path>& wiki_dir, const std::string& metric_text);

// The wiki a workspace's specs cite, as it is now, for commands that show or remove entries
// without verifying them: its identity (or why none can be read), and whether its fingerprint
// differs from the one specs.json recorded when the specs were last verified.
struct CitedWiki {
  std::optional<wiki::WikiIdentity> wiki;
  std::string problem;          // why `wiki` is empty
  std::string recorded;         // specs.json's wiki_fingerprint ("" when none)
  std::optional<bool> changed;  // nullopt when there is nothing to compare
};
CitedWiki cited_wiki(const std::filesystem::path& workspace, const std::optional<std::filesystem::path>& wiki_dir,
                     const Registry& reg);

struct ListResult {
  Registry reg;
  CitedWiki wiki;
};
ListResult list_specs(const std::filesystem::path& workspace, const std::optional<std::filesystem::path>& wiki_dir);

struct RemoveResult {
  std::string metric;
  size_t removed = 0;
  CitedWiki wiki;  // the wiki the removed entries cited
};
// Removes every entry (datasheet, measured, unknown) of the metric. Throws Error(missing_spec)
// when none is registered.
RemoveResult remove_spec(const std::filesystem::path& workspace, const std::optional<std::filesystem::path>& wiki_dir,
                         const std::string& metric_text);

}  // namespace kgo::specs
