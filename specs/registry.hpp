#pragma once
// The per-workspace spec registry, `<ws>/specs.json` (schema: schemas/specs.schema.json).
// Every entry is a hardware number with a verified `<gpu-wiki>/path:L<line>` citation,
// or an explicit UNKNOWN. Contract shared by specs/, roofline/ and harness/.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

// <signal.h> defines `si_value` as a macro (siginfo_t); include it first and drop the macro so
// SpecEntry::si_value means the same in every translation unit, whatever it includes later.
#include <signal.h>
#undef si_value

namespace kgo::specs {

struct SpecEntry {
  std::string metric;        // canonical, e.g. "hbm_bandwidth", "bf16_tensor", "launch_latency"
  std::string label;         // the text the user or `spec auto` gave
  std::string product;       // canonical product (the workspace's platform)
  bool unknown = false;      // "<metric>: UNKNOWN (gpu-wiki not found)"
  bool measured = false;     // cites a measured document (kgo ceiling --record)
  double value = 0;          // as cited
  std::string unit;          // as cited, e.g. "TB/s"
  double si_value = 0;       // in base units (bytes/s, FLOP/s, bytes, Hz, W, s, count)
  std::string dimension;     // see wiki::Quantity
  std::string citation;      // "<gpu-wiki>/docs/x.md:L37"
  std::string file;          // wiki-relative path
  int line = 0;
  std::string line_text;     // the cited line as it was when registered
  std::string line_sha256;
  std::string file_sha256;
  std::string added_at;      // ISO 8601
  std::string value_text;    // the number as written ("4.0", "1,978.9", "~148")
  bool approximate = false;  // the wiki writes it with "~"
};

void to_json(nlohmann::json& j, const SpecEntry& e);
void from_json(const nlohmann::json& j, SpecEntry& e);

// A gap the wiki could not fill (`kgo spec unknown`), in the seed's pitfalls_and_fixes shape.
struct Pitfall {
  std::string metric;
  std::string error_type = "missing_spec";
  std::string error_message;  // "<metric>: UNKNOWN (gpu-wiki not found)"
  std::string root_cause;
  std::string fix_applied;
  std::string lesson;
  std::string at;             // ISO 8601
};

void to_json(nlohmann::json& j, const Pitfall& p);
void from_json(const nlohmann::json& j, Pitfall& p);

struct Registry {
  std::string platform;
  std::string wiki_path;
  std::string wiki_fingerprint;
  std::vector<SpecEntry> specs;
  std::vector<Pitfall> pitfalls;

  // The entry for `metric`; with `prefer_measured`, a measured entry wins over a datasheet one.
  // Unknown entries are never returned.
  std::optional<SpecEntry> get(const std::string& metric, bool prefer_measured = true) const;
};

// specs.json's document: {"schema_version": 1, platform, wiki_path, wiki_fingerprint, specs, pitfalls}.
void to_json(nlohmann::json& j, const Registry& r);
void from_json(const nlohmann::json& j, Registry& r);

// Loads `<ws>/specs.json`; an absent file is an empty registry.
Registry load_registry(const std::filesystem::path& workspace);
// Validates against the schema, writes atomically, and regenerates README "Hardware Spec".
// The caller holds the core::WorkspaceLock.
void save_registry(const std::filesystem::path& workspace, const Registry& registry);

// Checks a specs.json document against schemas/specs.schema.json's rules; throws
// Error(schema_invalid) naming the first failing field.
void validate_registry_json(const nlohmann::json& j);

// The README "Hardware Spec" body: one `<label>: <value> <unit> <- <citation>` line per entry.
std::string render_hardware_spec(const Registry& registry);

}  // namespace kgo::specs
