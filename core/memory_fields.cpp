// Field-level record edits: typed --set values, array appends, and measured fields with stamps.
#include <regex>

#include "core/error.hpp"
#include "core/memory.hpp"
#include "core/problem.hpp"
#include "core/stamp.hpp"
#include "core/txn.hpp"
#include "core/untrusted.hpp"

namespace kgo::core {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::vector<std::string> split_path(const std::string& dotted) {
  std::vector<std::string> parts;
  size_t pos = 0;
  while (true) {
    size_t dot = dotted.find('.', pos);
    std::string part = dotted.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos);
    if (part.empty()) {
      throw Error("bad field path '" + dotted + "': write dotted names such as optimization.action_category",
                  ExitCode::usage);
    }
    parts.push_back(part);
    if (dot == std::string::npos) return parts;
    pos = dot + 1;
  }
}

std::string head_of(const std::string& dotted) { return dotted.substr(0, dotted.find('.')); }

void refuse_protected(const std::string& dotted) {
  if (auto why = protected_field(dotted)) {
    throw Error("refusing to write '" + dotted + "': " + *why, ExitCode::usage);
  }
}

// The previous accepted, unmasked record below `n` that has performance data.
const json* previous_accepted(const fs::path& ws, int n, json& holder) {
  auto versions = record_versions(ws);
  for (auto it = versions.rbegin(); it != versions.rend(); ++it) {
    if (*it >= n) continue;
    holder = read_record(ws, *it, true);
    if (holder.value("masked", false) || gate_result(holder) != "PASS") continue;
    if (!holder["git_commit"].is_string() || !holder["performance"].is_object()) continue;
    return &holder;
  }
  return nullptr;
}

json delta(const json& now, const json& before, const char* key) {
  if (!now.contains(key) || !before.contains(key) || !now[key].is_number() || !before[key].is_number()) return nullptr;
  return now[key].get<double>() - before[key].get<double>();
}

}  // namespace

std::optional<std::string> protected_field(const std::string& dotted) {
  std::string head = head_of(dotted);
  if (head == "correctness") {
    return "correctness is a measured field: only `kgo check` writes it, stamped with the SHA-256 of the "
           "kernel it checked";
  }
  if (head == "performance") {
    return "performance is a measured field: only `kgo bench` writes it, stamped with the SHA-256 of the "
           "kernel it timed";
  }
  if (head == "quality_gate" || head == "git_commit") {
    return head + " is written only by `kgo iterate accept` and `kgo iterate reject`";
  }
  if (head == "masked") return "use `kgo memory mask vN` or `kgo memory unmask vN`";
  if (head == "version" || head == "schema_version" || head == "timestamp") {
    return head + " is set by `kgo memory create`";
  }
  return std::nullopt;
}

json parse_typed_value(const std::string& text) {
  static const std::regex integer(R"(^-?(0|[1-9][0-9]{0,17})$)");
  static const std::regex decimal(R"(^-?([0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)([eE][+-]?[0-9]+)?$)");
  if (text == "null") return nullptr;
  if (text == "true") return true;
  if (text == "false") return false;
  if (std::regex_match(text, integer)) return std::stoll(text);
  if (std::regex_match(text, decimal)) return std::stod(text);
  if (!text.empty() && (text[0] == '{' || text[0] == '[' || text[0] == '"')) {
    json j = parse_json_bounded(text);
    if (j.is_discarded()) {
      throw Error("value " + text.substr(0, 60) + " looks like JSON but does not parse; quote it properly "
                  "(e.g. '{\"key\": \"value\"}')",
                  ExitCode::usage);
    }
    return j;
  }
  return text;
}

const json* find_path(const json& j, const std::string& dotted) {
  const json* cur = &j;
  for (const auto& part : split_path(dotted)) {
    if (!cur->is_object() || !cur->contains(part)) return nullptr;
    cur = &(*cur)[part];
  }
  return cur;
}

void set_path(json& j, const std::string& dotted, json value) {
  auto parts = split_path(dotted);
  json* cur = &j;
  std::string walked;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    walked += (walked.empty() ? "" : ".") + parts[i];
    json& next = (*cur)[parts[i]];
    if (next.is_null()) next = json::object();
    if (!next.is_object()) {
      throw Error("cannot set '" + dotted + "': '" + walked + "' is a " + next.type_name() +
                      ", not an object (use `kgo memory append` for lists)",
                  ExitCode::usage);
    }
    cur = &next;
  }
  (*cur)[parts.back()] = std::move(value);
}

void refuse_decided(const json& rec, int n) {
  std::string gate = gate_result(rec);
  if (gate == "PENDING") return;
  throw Error(version_name(n) + " is decided (quality gate " + gate + ") and its record is final; kgo memory update and "
                  "append never change it (only kgo memory mask|unmask do). Write new findings into the next "
                  "iteration's record (kgo memory create)",
              ExitCode::record_error);
}

json update_record(const fs::path& workspace, int n, const std::vector<FieldUpdate>& sets) {
  if (sets.empty()) throw Error("nothing to update: pass --set field=value", ExitCode::usage);
  LockedWorkspace guard(workspace);
  json rec = read_record(workspace, n);
  refuse_decided(rec, n);
  for (const auto& s : sets) {
    refuse_protected(s.path);
    set_path(rec, s.path, parse_typed_value(s.value));
  }
  write_record(workspace, n, rec);
  return rec;
}

json append_to_record(const fs::path& workspace, int n, const std::string& field, const std::string& value) {
  refuse_protected(field);
  json item = parse_typed_value(value);
  LockedWorkspace guard(workspace);
  json rec = read_record(workspace, n);
  refuse_decided(rec, n);
  json* target = const_cast<json*>(find_path(rec, field));
  if (!target || !target->is_array()) {
    throw Error("cannot append to '" + field + "': " + (target ? "it is not a list" : "no such field") +
                    " (lists: pitfalls_and_fixes, search_log, references, isa_metric_progress, "
                    "profile_evidence.evidence_chain)",
                ExitCode::usage);
  }
  target->push_back(std::move(item));
  write_record(workspace, n, rec);
  return rec;
}

std::optional<std::string> stamp_problem(const json& record, const std::string& field, const std::string& kernel_sha256) {
  const json* m = find_path(record, field);
  std::string tool = field == "correctness" ? "kgo check" : "kgo bench";
  if (!m || !m->is_object()) return "no " + field + " result: run `" + tool + "` on this kernel first";
  const json* sha = find_path(*m, "stamp.kernel_sha256");
  if (!sha || !sha->is_string()) return field + " carries no stamp: run `" + tool + "` again";
  if (sha->get<std::string>() != kernel_sha256) {
    return field + " was measured on another kernel (stamp sha256 " + sha->get<std::string>().substr(0, 12) +
           "..., the kernel file now hashes to " + kernel_sha256.substr(0, 12) +
           "...): the kernel changed after its measurement; run `" + tool + "` again";
  }
  if (field == "correctness" && m->value("status", "") != "PASS") {
    return "correctness status is " + m->value("status", std::string("missing")) + ", not PASS";
  }
  return std::nullopt;
}

void record_measurement(const fs::path& workspace, int n, const std::string& field, json value,
                        const std::string& kernel_sha256, const std::string& tool) {
  record_measurement(workspace, n, field, std::move(value), kernel_sha256, tool, StampInputs{});
}

void record_measurement(const fs::path& workspace, int n, const std::string& field, json value,
                        const std::string& kernel_sha256, const std::string& tool, const StampInputs& inputs) {
  if (field != "correctness" && field != "performance") {
    throw Error("record_measurement writes only correctness or performance, not '" + field + "'", ExitCode::internal);
  }
  if (!value.is_object()) throw Error(field + " must be a JSON object", ExitCode::internal);
  LockedWorkspace guard(workspace);
  // Nothing is stamped against a problem other than the committed one its baseline fixed (core/problem.hpp).
  if (auto why = problem_difference(workspace)) throw Error("refusing to record: " + *why, ExitCode::kernel_missing);
  json rec = read_record(workspace, n);
  if (gate_result(rec) != "PENDING") {
    throw Error(version_name(n) + " was already " + (gate_result(rec) == "PASS" ? "accepted" : "rejected") +
                    "; its measurements are final. Start the next iteration with `kgo memory create`",
                ExitCode::record_error);
  }
  value["stamp"] = {{"tool", tool}, {"kernel_sha256", kernel_sha256}, {"at", record_time_now()}};
  if (field == "performance") {
    json holder;
    const json* prev = previous_accepted(workspace, n, holder);
    if (prev && value.contains("latency_us") && value["latency_us"].is_number()) {
      const json& p = (*prev)["performance"];
      double now = value["latency_us"].get<double>(), before = p.value("latency_us", 0.0);
      value["comparison_with_previous"] = {
          {"previous_version", (*prev)["version"]},
          {"latency_delta_us", now - before},
          {"latency_delta_pct", before > 0 ? (now - before) / before * 100.0 : 0.0},
          {"tflops_delta", delta(value, p, "tflops")},
          {"bandwidth_delta", delta(value, p, "bandwidth_gbps")}};
    } else {
      value["comparison_with_previous"] = nullptr;
    }
  }
  if (inputs.sources.is_array() && !inputs.sources.empty()) value["stamp"]["sources"] = inputs.sources;
  value["stamp"]["allowed_ops"] = inputs.allowed_ops;
  value["stamp"]["mac"] = stamp_mac(workspace, n, field, value);
  rec[field] = std::move(value);
  write_record(workspace, n, rec);
}

}  // namespace kgo::core
