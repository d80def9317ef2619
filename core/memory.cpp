#include "core/memory.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <regex>
#include <set>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/untrusted.hpp"
#include "core/json_schema.hpp"
#include "core/resources.hpp"
#include "core/txn.hpp"

namespace kgo::core {

namespace fs = std::filesystem;
using nlohmann::json;

int parse_version(const std::string& text) {
  static const std::regex re(R"(^[vV](0|[1-9][0-9]{0,8})$)");
  std::smatch m;
  if (!std::regex_match(text, m, re)) {
    throw Error("bad version '" + text + "': write v<N>, e.g. v0 or v3", ExitCode::usage);
  }
  return std::stoi(m[1].str());
}

std::string version_name(int n) { return "v" + std::to_string(n); }

fs::path record_path(const fs::path& workspace, int n) {
  return workspace / "memory" / (version_name(n) + ".json");
}

std::vector<int> record_versions(const fs::path& workspace) {
  // Plain parsing, not std::regex: a summary lists 1,000 records within 100 ms.
  std::vector<int> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(workspace / "memory", ec)) {
    std::string f = e.path().filename().string();
    if (f.size() < 7 || f.size() > 15 || f[0] != 'v' || f.compare(f.size() - 5, 5, ".json") != 0) continue;
    std::string digits = f.substr(1, f.size() - 6);
    if (digits.find_first_not_of("0123456789") != std::string::npos || (digits.size() > 1 && digits[0] == '0')) continue;
    std::error_code tec;
    if (!e.is_regular_file(tec) || e.is_symlink(tec)) {
      static std::set<std::string> warned;
      if (warned.insert(e.path().string()).second) std::fprintf(stderr, "kgo: warning: skipping %s: not a regular file (remove it; records are plain files)\n",
                   e.path().c_str());
      continue;
    }
    out.push_back(std::stoi(digits));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<int> latest_version(const fs::path& workspace) {
  auto v = record_versions(workspace);
  if (v.empty()) return std::nullopt;
  return v.back();
}

json read_record(const fs::path& workspace, int n, bool include_masked) {
  fs::path p = record_path(workspace, n);
  auto text = try_read_file(p);
  if (!text) {
    throw Error("no record " + version_name(n) + " (" + p.string() +
                    "); `kgo memory list` shows the existing ones, `kgo memory create` makes one",
                ExitCode::record_error);
  }
  if (auto why = json_limit_problem(*text)) {
    throw Error(p.string() + " is refused: " + *why + " (kgo's limits for a record: 16 MiB, 128 levels); restore it "
                    "from git (git checkout -- memory/" + version_name(n) + ".json)",
                ExitCode::schema_invalid);
  }
  json j = json::parse(*text, nullptr, false);
  if (!j.is_object()) {
    throw Error(p.string() + " is not a JSON object; restore it from git (git checkout -- memory/" +
                    version_name(n) + ".json)",
                ExitCode::record_error);
  }
  if (j.value("masked", false) && !include_masked) {
    throw Error(version_name(n) + " is masked (discarded memory, kept out of planning); pass --include-masked "
                "to read it anyway, or `kgo memory unmask " + version_name(n) + "`",
                ExitCode::record_error);
  }
  return j;
}

const JsonSchema& iteration_schema() {
  static const JsonSchema schema = JsonSchema::load(data_file("schemas/iteration.schema.json"));
  return schema;
}

void validate_record(const json& record, int n) {
  iteration_schema().validate_or_throw(record, "record " + version_name(n) + " refused");
  if (record.at("version") != version_name(n)) {
    throw Error("record " + version_name(n) + " refused: field 'version' must be \"" + version_name(n) +
                    "\", got " + record.at("version").dump(),
                ExitCode::schema_invalid);
  }
}

std::string dump_record(const json& record) {
  return record.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

void write_record(const fs::path& workspace, int n, const json& record) {
  validate_record(record, n);
  write_files(workspace, "write memory/" + version_name(n) + ".json",
              {TxnFile{"memory/" + version_name(n) + ".json", dump_record(record)}});
}

long long record_epoch_now() {
  if (const char* e = std::getenv("SOURCE_DATE_EPOCH"); e && *e) {
    char* end = nullptr;
    long long v = std::strtoll(e, &end, 10);
    if (end && *end == '\0' && v >= 0) return v;
  }
  return static_cast<long long>(std::time(nullptr));
}

std::string record_time_now() {
  std::time_t t = static_cast<std::time_t>(record_epoch_now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

json new_record(int n) {
  return {{"schema_version", 1},
          {"version", version_name(n)},
          {"masked", false},
          {"timestamp", record_time_now()},
          {"performance", nullptr},
          {"optimization", {{"action_category", n == 0 ? "baseline" : ""},
                            {"action_description", ""},
                            {"hypothesis", ""},
                            {"rationale", ""},
                            {"expected_impact", ""},
                            {"risks_and_rollback", ""}}},
          {"profile_evidence", {{"tool_used", ""}, {"evidence_summary", ""}, {"bottleneck_type", "unknown"},
                                {"evidence_chain", json::array()}}},
          {"correctness", nullptr},
          {"isa_metric_progress", json::array()},
          {"search_log", json::array()},
          {"pitfalls_and_fixes", json::array()},
          {"references", json::array()},
          {"quality_gate", {{"result", "PENDING"}, {"failure_reason", nullptr}}},
          {"git_commit", nullptr},
          {"environment", nullptr}};
}

int create_record(const fs::path& workspace, std::optional<int> n) {
  LockedWorkspace guard(workspace);
  int v = n ? *n : latest_version(workspace).value_or(-1) + 1;
  if (fs::exists(record_path(workspace, v))) {
    throw Error("record " + version_name(v) + " already exists; records are never overwritten (edit it with "
                "`kgo memory update`, or create the next one without a version)",
                ExitCode::record_error);
  }
  write_record(workspace, v, new_record(v));
  return v;
}

std::string gate_result(const json& record) {
  const json* r = find_path(record, "quality_gate.result");
  return r && r->is_string() ? r->get<std::string>() : "PENDING";
}

}  // namespace kgo::core
