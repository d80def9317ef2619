// Record/commit agreement, as `kgo iterate verify` and the crash tests check it.
#include <set>

#include "core/decided.hpp"
#include "core/files.hpp"
#include "core/untrusted.hpp"
#include "core/git.hpp"
#include "core/json_schema.hpp"
#include "core/memory.hpp"
#include "core/problem.hpp"
#include "core/txn.hpp"
#include "core/workspace.hpp"
#include "iterate/lifecycle.hpp"

namespace kgo::iterate {

using nlohmann::json;

namespace {

void check_commit(const core::GitRepo& repo, const fs::path& repo_path, const std::map<std::string, std::string>& subjects, const std::string& kernel,
                  int n, const std::string& id, std::vector<std::string>& problems) {
  std::string v = core::version_name(n), rel = "memory/" + v + ".json";
  auto it = subjects.find(id);
  if (it == subjects.end()) {
    problems.push_back(v + " names commit " + id + ", which is not on the branch");
    return;
  }
  if (it->second.rfind("V" + std::to_string(n) + ":", 0) != 0) {
    problems.push_back(v + " names commit " + id.substr(0, 12) + " whose subject '" + it->second + "' is not V" +
                       std::to_string(n) + "'s");
  }
  auto text = repo.read_at(id, rel);
  json then = text ? core::parse_json_bounded(*text) : json();
  if (!then.is_object() || then.value("version", "") != v || core::gate_result(then) != "PASS") {
    problems.push_back("commit " + id.substr(0, 12) + " does not hold " + v + " as an accepted record");
    return;
  }
  if (!then.value("git_commit", json()).is_null()) {
    problems.push_back(v + " names commit " + id.substr(0, 12) + ", which is a bookkeeping commit, not the iteration's");
  }
  if (auto now = core::try_read_file(repo_path / rel)) {
    auto changed = core::changed_fields(then, core::parse_json_bounded(*now), {"git_commit", "masked"});
    if (!changed.empty()) {
      std::string fields;
      for (const auto& f : changed) fields += (fields.empty() ? "" : ", ") + f;
      problems.push_back(rel + " differs from the record in its decision commit " + id.substr(0, 12) + " (changed: " +
                         fields + "); restore it: git checkout " + id.substr(0, 12) + " -- " + rel);
    }
  }
  auto kernel_then = repo.read_at(id, kernel);
  const json* sha = core::find_path(then, "correctness.stamp.kernel_sha256");
  if (!kernel_then || !sha || !sha->is_string() || core::sha256_hex(*kernel_then) != sha->get<std::string>()) {
    problems.push_back("commit " + id.substr(0, 12) + ": its " + kernel + " is not the kernel " + v + "'s PASS stamp names");
  }
}

}  // namespace

VerifyResult verify_workspace(const fs::path& ws) {
  VerifyResult out;
  if (core::transaction_pending(ws)) out.problems.push_back("an interrupted kgo operation is pending (.kgo/journal.json)");
  core::WorkspaceConfig cfg = core::load_config(ws);
  core::GitRepo repo = core::GitRepo::open(ws);
  std::map<std::string, std::string> subjects;
  for (const auto& c : repo.log()) subjects[c.id] = c.summary;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(ws / "memory", ec)) {
    std::string f = e.path().filename().string();
    if (f.size() > 4 && f[0] == '.' && f.find(".tmp") != std::string::npos) {
      out.problems.push_back("memory/" + f + " is a temporary file a killed write left behind");
    }
  }
  for (const auto& e : core::decided_record_edits(ws)) out.problems.push_back(e.describe());
  auto baseline = core::find_baseline(ws);
  for (const auto& c : core::problem_changes_since_baseline(ws)) out.problems.push_back(c.describe(baseline));
  for (int n : core::record_versions(ws)) {
    ++out.records;
    std::string v = core::version_name(n), rel = "memory/" + v + ".json";
    json rec = core::parse_json_bounded(core::try_read_file(ws / rel).value_or(""));
    if (!rec.is_object()) {
      out.problems.push_back(rel + " is not valid JSON");
      continue;
    }
    auto errs = core::iteration_schema().validate(rec);
    if (!errs.empty()) out.problems.push_back(rel + ": " + core::describe(errs.front()));
    const json& gc = rec.contains("git_commit") ? rec["git_commit"] : json();
    if (core::gate_result(rec) == "PASS" && !gc.is_string()) {
      out.problems.push_back(v + " is accepted but names no commit");
    }
    if (!gc.is_string()) continue;
    check_commit(repo, ws, subjects, cfg.kernel_file, n, gc.get<std::string>(), out.problems);
    if (repo.head()) {
      auto at_head = repo.read_at("HEAD", rel);
      json h = at_head ? core::parse_json_bounded(*at_head) : json();
      if (!h.is_object() || h.value("git_commit", json()) != gc) {
        out.problems.push_back(rel + " names commit " + gc.get<std::string>().substr(0, 12) +
                               " but the committed record at HEAD does not");
      }
    }
  }
  return out;
}

}  // namespace kgo::iterate
