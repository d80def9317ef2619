#include "core/problem.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/git.hpp"
#include "core/strings.hpp"
#include "core/untrusted.hpp"

namespace kgo::core {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string k_config_entry = "kgo.json (reference, problem, kernel_file, contract)";

using Reader = std::function<std::optional<std::string>(const std::string&)>;
using Snapshot = std::map<std::string, std::optional<std::string>>;  // problem file -> bytes (nullopt: absent)

// The problem files as `read` sees them (a commit or the work tree), named by the kgo.json it reads.
Snapshot snapshot(const Reader& read) {
  Snapshot s;
  std::optional<std::string> text = read("kgo.json");
  json cfg = text ? parse_json_bounded(*text) : json();
  if (!cfg.is_object()) {
    s[k_config_entry] = text;
    return s;
  }
  json chosen = json::object();
  for (const char* key : {"reference", "problem", "kernel_file", "contract"}) chosen[key] = cfg.value(key, json());
  s[k_config_entry] = chosen.dump();
  // The problem file kgo init stored (the baseline's setup(), which makes the inputs) is the problem too.
  if (cfg.contains("problem") && cfg["problem"].is_string() && !cfg["problem"].get<std::string>().empty()) {
    std::string problem = fs::path(cfg["problem"].get<std::string>()).lexically_normal().generic_string();
    s[problem] = read(problem);
  }
  if (!cfg.contains("reference") || !cfg["reference"].is_string() || cfg["reference"].get<std::string>().empty()) {
    return s;
  }
  fs::path ref = fs::path(cfg["reference"].get<std::string>()).lexically_normal();
  s[ref.generic_string()] = read(ref.generic_string());
  if (ref.extension() == ".json") {  // a SOL-ExecBench definition: its workloads beside it are the problem too
    std::string workloads = (ref.parent_path() / "workload.jsonl").generic_string();
    s[workloads] = read(workloads);
  }
  return s;
}

std::vector<std::string> differing(const Snapshot& a, const Snapshot& b) {
  std::set<std::string> names;
  for (const auto& [k, v] : a) names.insert(k);
  for (const auto& [k, v] : b) names.insert(k);
  std::vector<std::string> out;
  for (const auto& n : names) {
    auto ia = a.find(n), ib = b.find(n);
    std::optional<std::string> va = ia == a.end() ? std::nullopt : ia->second;
    std::optional<std::string> vb = ib == b.end() ? std::nullopt : ib->second;
    if (va != vb) out.push_back(n);
  }
  return out;
}

Reader at(const GitRepo& repo, const std::string& rev) {
  return [&repo, rev](const std::string& rel) { return repo.read_at(rev, rel); };
}

std::string short_id(const std::string& id) { return id.substr(0, 7); }

std::optional<GitRepo> open_repo(const fs::path& ws) {
  std::error_code ec;
  if (!fs::exists(ws / ".git", ec)) return std::nullopt;
  GitRepo repo = GitRepo::open(ws);
  if (!repo.head()) return std::nullopt;
  return std::optional<GitRepo>(std::move(repo));
}

std::optional<Baseline> baseline_in(const GitRepo& repo, const std::vector<CommitInfo>& log) {
  std::vector<int> versions;
  for (const auto& [name, blob] : repo.blobs_at("HEAD", "memory")) {
    if (name.size() < 7 || name[0] != 'v' || name.compare(name.size() - 5, 5, ".json") != 0) continue;
    std::string digits = name.substr(1, name.size() - 6);
    if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    versions.push_back(std::stoi(digits));
  }
  std::sort(versions.begin(), versions.end());
  for (int n : versions) {
    json rec = parse_json_bounded(repo.read_at("HEAD", "memory/v" + std::to_string(n) + ".json").value_or(""));
    if (!rec.is_object() || rec.value("masked", false)) continue;
    const json& gate = rec.value("quality_gate", json());
    if (!gate.is_object() || gate.value("result", "") != "PASS" || !rec.value("git_commit", json()).is_string()) continue;
    std::string commit = rec["git_commit"].get<std::string>();
    for (const auto& c : log) {
      if (c.id == commit) return Baseline{n, commit};
    }
  }
  return std::nullopt;
}

}  // namespace

std::string ProblemChange::describe(const std::optional<Baseline>& b) const {
  std::string base = b ? "the baseline (V" + std::to_string(b->version) + ", commit " + short_id(b->commit) + ")"
                       : std::string("the baseline");
  std::string by = commit.empty() ? "the work tree" : "commit " + short_id(commit) + " \"" + subject + "\"";
  return file + " changed after " + base + " by " + by +
         ": every verdict since was judged against another problem than the baseline's";
}

std::optional<Baseline> find_baseline(const fs::path& workspace) {
  auto repo = open_repo(workspace);
  if (!repo) return std::nullopt;
  return baseline_in(*repo, repo->log());
}

std::vector<ProblemChange> problem_changes_since_baseline(const fs::path& workspace) {
  std::vector<ProblemChange> out;
  auto repo = open_repo(workspace);
  if (!repo) return out;
  std::vector<CommitInfo> log = repo->log();
  auto base = baseline_in(*repo, log);
  if (!base) return out;
  auto it = std::find_if(log.begin(), log.end(), [&](const CommitInfo& c) { return c.id == base->commit; });
  Snapshot before = snapshot(at(*repo, base->commit));
  // log is newest first: walk from the commit after the baseline up to HEAD.
  for (auto c = std::make_reverse_iterator(it); c != log.rend(); ++c) {
    Snapshot now = snapshot(at(*repo, c->id));
    for (const auto& f : differing(before, now)) out.push_back({f, c->id, c->summary});
    before = std::move(now);
  }
  return out;
}

std::optional<std::string> problem_difference(const fs::path& workspace) {
  auto repo = open_repo(workspace);
  if (!repo) return std::nullopt;
  std::vector<CommitInfo> log = repo->log();
  auto base = baseline_in(*repo, log);
  Snapshot head = snapshot(at(*repo, "HEAD"));
  Snapshot work = snapshot([&](const std::string& rel) { return try_read_file(workspace / rel); });
  if (auto files = differing(head, work); !files.empty()) {
    std::vector<std::string> paths;
    for (const auto& f : files) paths.push_back(f == k_config_entry ? "kgo.json" : f);
    std::string what = files.size() == 1 ? files[0] + " differs from its committed version"
                                         : join(files, ", ", " and ") + " differ from their committed versions";
    std::string it = files.size() == 1 ? "it" : "them";
    return what + "; a kernel is judged against the committed problem only: restore " + it + " (git checkout -- " +
           join(paths, " ") + ")" +
           (base ? "; the baseline V" + std::to_string(base->version) +
                       " fixed the problem, so a new problem needs a new workspace (kgo init --force)"
                 : " or commit the change (git commit " + join(paths, " ") + ")");
  }
  if (!base) return std::nullopt;
  auto files = differing(snapshot(at(*repo, base->commit)), head);
  if (files.empty()) return std::nullopt;
  const std::string& f = files.front();
  std::string path = f == k_config_entry ? "kgo.json" : f;
  std::string by;
  for (const auto& c : problem_changes_since_baseline(workspace)) {
    if (c.file == f) by += (by.empty() ? "" : ", ") + short_id(c.commit) + " \"" + c.subject + "\"";
  }
  return f + " differs from the baseline's (V" + std::to_string(base->version) + ", commit " + short_id(base->commit) +
         ")" + (by.empty() ? "" : "; changed by commit " + by) +
         ": a kernel is judged only against the problem its baseline fixed. Restore it (git checkout " +
         short_id(base->commit) + " -- " + path + " && git commit -m 'restore the baseline's " + path +
         "'), or start a new workspace for the new problem (kgo init --force)";
}

void verify_problem_unchanged(const fs::path& workspace) {
  if (auto why = problem_difference(workspace)) throw Error(*why, ExitCode::kernel_missing);
}

}  // namespace kgo::core
