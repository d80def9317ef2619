// Masking records by hand (kgo memory mask/unmask) and by the partial restart (kgo restart).
#include <algorithm>
#include <random>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/memory.hpp"
#include "core/txn.hpp"
#include "iterate/iteration_log.hpp"
#include "iterate/lifecycle.hpp"
#include "iterate/records.hpp"
#include "iterate/restart.hpp"

namespace kgo::iterate {

using nlohmann::json;

namespace {

std::string list_text(const std::vector<int>& versions) {
  std::string s;
  for (int v : versions) s += (s.empty() ? "v" : ", v") + std::to_string(v);
  return s;
}

std::string record_rel(int n) { return "memory/" + core::version_name(n) + ".json"; }

std::string commit_records(const fs::path& ws, std::vector<Record>& records, const std::vector<int>& changed,
                           const std::string& op, const std::string& message) {
  core::TxnCommit c{message, {}, {}};
  for (const auto& r : records) {
    if (std::find(changed.begin(), changed.end(), r.n) == changed.end()) continue;
    core::validate_record(r.j, r.n);
    c.files.push_back({record_rel(r.n), core::dump_record(r.j), true});
  }
  std::string readme = core::try_read_file(ws / "README.md").value_or("# Kernel Opt Session\n");
  c.files.push_back({"README.md", readme_with_log(readme, records), true});
  auto result = core::run_transaction(ws, op, {c});
  if (result.outcome != "completed") throw Error(op + " did not complete: " + result.outcome, ExitCode::git_error);
  return result.commits.at(0);
}

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace

MaskResult set_masked(const fs::path& ws, const std::vector<int>& versions, bool masked) {
  if (versions.empty()) throw Error("name the records to " + std::string(masked ? "mask" : "unmask") + ", e.g. v3", ExitCode::usage);
  core::LockedWorkspace guard(ws);
  auto records = load_records(ws);
  std::vector<int> changed;
  MaskResult out;
  for (int n : versions) {
    auto it = std::find_if(records.begin(), records.end(), [&](const Record& r) { return r.n == n; });
    if (it == records.end()) {
      throw Error("no record " + core::version_name(n) + "; nothing was " + (masked ? "masked" : "unmasked"),
                  ExitCode::record_error);
    }
    if (n == 0 && masked) {
      throw Error("v0 is the baseline and cannot be masked; nothing was masked", ExitCode::record_error);
    }
    if (it->masked() == masked || std::find(changed.begin(), changed.end(), n) != changed.end()) {
      out.unchanged.push_back(core::version_name(n));
      continue;
    }
    it->j["masked"] = masked;
    changed.push_back(n);
    out.changed.push_back(core::version_name(n));
  }
  if (changed.empty()) return out;
  std::string verb = masked ? "mask" : "unmask";
  out.commit = commit_records(ws, records, changed, verb + " " + list_text(changed), "memory: " + verb + " " + list_text(changed));
  return out;
}

std::vector<int> choose_masked(const std::vector<int>& candidates, std::uint64_t seed) {
  std::vector<int> order = candidates;
  std::sort(order.begin(), order.end());
  std::uint64_t state = seed;
  for (size_t i = order.size(); i > 1; --i) {
    size_t j = static_cast<size_t>(splitmix64(state) % i);
    std::swap(order[i - 1], order[j]);
  }
  order.resize((order.size() + 1) / 2);
  std::sort(order.begin(), order.end());
  return order;
}

RestartResult partial_restart(const fs::path& ws, std::optional<std::uint64_t> seed, const std::string& reason) {
  core::LockedWorkspace guard(ws);
  auto records = load_records(ws);
  RestartResult out;
  const Record* best = current_best(records);
  if (best) out.best = best->n;
  std::vector<int> candidates;
  for (const auto& r : records) {
    if (!r.masked() && r.n != 0 && (!best || r.n != best->n)) candidates.push_back(r.n);
  }
  if (candidates.empty()) {
    throw Error("nothing to mask: only v0 and the current best are unmasked; a restart would change nothing",
                ExitCode::record_error);
  }
  out.seed = seed ? *seed : (std::random_device{}() * 0x100000000ULL + std::random_device{}()) & ((1ULL << 53) - 1);
  out.masked = choose_masked(candidates, out.seed);
  for (auto& r : records) {
    if (std::find(out.masked.begin(), out.masked.end(), r.n) != out.masked.end()) r.j["masked"] = true;
    if (!r.masked()) out.kept.push_back(r.n);
  }
  out.noted_in = out.kept.back();
  out.next_version = records.back().n + 1;
  Record& note = *std::find_if(records.begin(), records.end(), [&](const Record& r) { return r.n == out.noted_in; });
  json masked_names = json::array(), kept_names = json::array();
  for (int n : out.masked) masked_names.push_back(core::version_name(n));
  for (int n : out.kept) kept_names.push_back(core::version_name(n));
  std::string best_text = best ? "V" + std::to_string(best->n) + " (current best)" : "no accepted version yet";
  note.j["pitfalls_and_fixes"].push_back(
      {{"error_type", "restart"},
       {"error_message", "partial restart: masked " + list_text(out.masked) + " of " + std::to_string(candidates.size()) +
                             " candidate records (seed " + std::to_string(out.seed) + ")"},
       {"root_cause", reason.empty() ? "no new optimization direction while the target is unmet" : reason},
       {"fix_applied", "masked " + list_text(out.masked) + "; kept " + list_text(out.kept) + ", never v0 nor " + best_text +
                           "; numbering continues at v" + std::to_string(out.next_version)},
       {"lesson", "masked records are historical hints, not proof: re-derive the next direction from fresh profiles"},
       {"details", {{"seed", out.seed}, {"masked", masked_names}, {"kept", kept_names},
                    {"best", best ? json(core::version_name(best->n)) : json()},
                    {"next_version", core::version_name(out.next_version)}}}});
  std::vector<int> changed = out.masked;
  changed.push_back(out.noted_in);
  out.commit = commit_records(ws, records, changed, "restart (seed " + std::to_string(out.seed) + ")",
                              "restart: masked " + list_text(out.masked) + " (seed " + std::to_string(out.seed) +
                                  "); next iteration v" + std::to_string(out.next_version));
  return out;
}

}  // namespace kgo::iterate
