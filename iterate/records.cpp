#include "iterate/records.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/memory.hpp"

namespace kgo::iterate {

using nlohmann::json;

std::string Record::gate() const { return core::gate_result(j); }

bool Record::accepted() const { return gate() == "PASS" && j.contains("git_commit") && j["git_commit"].is_string(); }

std::optional<double> Record::number(const std::string& dotted) const {
  const json* v = core::find_path(j, dotted);
  if (!v || !v->is_number()) return std::nullopt;
  return v->get<double>();
}

std::vector<Record> load_records(const fs::path& workspace) {
  std::vector<Record> out;
  for (int n : core::record_versions(workspace)) out.push_back({n, core::read_record(workspace, n, true)});
  return out;
}

const Record* last_accepted(const std::vector<Record>& records) {
  for (auto it = records.rbegin(); it != records.rend(); ++it) {
    if (it->accepted()) return &*it;
  }
  return nullptr;
}

const Record* current_best(const std::vector<Record>& records) {
  const Record* best = nullptr;
  for (const auto& r : records) {
    if (!r.accepted() || r.masked()) continue;
    auto lat = r.number("performance.latency_us");
    auto best_lat = best ? best->number("performance.latency_us") : std::nullopt;
    if (!best || (lat && (!best_lat || *lat <= *best_lat)) || (!lat && !best_lat)) best = &r;
  }
  return best;
}

namespace {

std::string one_line(std::string s, size_t max) {
  for (char& c : s) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  size_t a = s.find_first_not_of(' ');
  size_t b = s.find_last_not_of(' ');
  s = a == std::string::npos ? "" : s.substr(a, b - a + 1);
  if (s.size() > max) s = s.substr(0, max - 3) + "...";
  return s;
}

std::string text_at(const json& j, const std::string& dotted) {
  const json* v = core::find_path(j, dotted);
  return v && v->is_string() ? v->get<std::string>() : "";
}

}  // namespace

std::string perf_text(const json& record) {
  const json* p = core::find_path(record, "performance");
  if (!p || !p->is_object()) return "not benchmarked";
  auto num = [&](const char* key) -> std::optional<double> {
    return p->contains(key) && (*p)[key].is_number() ? std::optional<double>((*p)[key].get<double>()) : std::nullopt;
  };
  auto tf = num("tflops"), bw = num("bandwidth_gbps");
  std::string tf_s = tf ? fmt::format("{:.2f} TFLOP/s", *tf) : "", bw_s = bw ? fmt::format("{:.1f} GB/s", *bw) : "";
  if (tf && bw) {
    auto tu = num("tflops_peak_utilization_pct"), bu = num("bandwidth_peak_utilization_pct");
    if (tu && bu) return *tu >= *bu ? tf_s : bw_s;
    std::string bound = text_at(record, "profile_evidence.bottleneck_type");
    if (bound == "compute_bound") return tf_s;
    if (bound == "memory_bound") return bw_s;
    return tf_s + " / " + bw_s;
  }
  if (tf) return tf_s;
  if (bw) return bw_s;
  if (auto lat = num("latency_us")) return fmt::format("{:.2f} us", *lat);
  return "not benchmarked";
}

std::string summary_text(const json& record) {
  std::string s = text_at(record, "optimization.action_description");
  if (s.empty()) s = text_at(record, "optimization.action_category");
  return s.empty() ? "no description" : one_line(s, 72);
}

std::string evidence_text(const json& record) {
  std::string s = text_at(record, "profile_evidence.evidence_summary");
  if (s.empty()) s = text_at(record, "profile_evidence.bottleneck_type");
  return s.empty() || s == "unknown" ? "not profiled" : one_line(s, 72);
}

int decided_iterations(const std::vector<Record>& records) {
  int n = 0;
  for (const Record& r : records) n += r.n >= 1 && r.gate() != "PENDING";
  return n;
}

void require_decidable(const std::vector<Record>& records, int n) {
  const Record* rec = nullptr;
  for (const auto& r : records) {
    if (r.n == n) rec = &r;
  }
  std::string v = core::version_name(n);
  if (!rec) {
    throw Error("no record " + v + " (memory/" + v + ".json); `kgo memory create " + v + "` makes it",
                ExitCode::record_error);
  }
  if (rec->masked()) {
    throw Error(v + " is masked (discarded memory); `kgo memory unmask " + v + "` first", ExitCode::record_error);
  }
  if (rec->gate() != "PENDING") {
    throw Error(v + " was already " + (rec->gate() == "PASS" ? "accepted" : "rejected") +
                    "; decisions are final. Start the next iteration with `kgo memory create`",
                ExitCode::record_error);
  }
  for (const auto& r : records) {
    if (r.n > n && r.gate() != "PENDING") {
      throw Error("v" + std::to_string(r.n) + " is newer than " + v + " and already decided; " + v +
                      " can no longer be accepted or rejected",
                  ExitCode::record_error);
    }
  }
}

}  // namespace kgo::iterate
