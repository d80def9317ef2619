#include "experience/store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string_view>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/parallel.hpp"
#include "experience/vocabulary.hpp"

namespace kgo::experience {

using nlohmann::json;

namespace {

json opt(const std::optional<double>& v) { return v ? json(*v) : json(); }
std::optional<double> opt_num(const json& j, const char* k) {
  return j.contains(k) && j[k].is_number() ? std::optional<double>(j[k].get<double>()) : std::nullopt;
}

std::string need_string(const json& j, const char* k) {
  if (!j.contains(k) || !j[k].is_string() || j[k].get<std::string>().empty()) {
    throw Error(std::string("experience record: '") + k + "' is missing or not a non-empty string",
                ExitCode::schema_invalid);
  }
  return j[k].get<std::string>();
}

void fail_io(const std::string& what, const fs::path& p) {
  throw Error(what + " " + p.string() + ": " + std::strerror(errno) + "; check the path and its permissions (--store)",
              ExitCode::not_writable);
}

void append_line(const fs::path& dir, const char* file, const std::string& line) {
  StoreLock lock(dir);
  fs::path p = dir / file;
  int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) fail_io("cannot open", p);
  std::string text = line + "\n";
  ssize_t n = ::write(fd, text.data(), text.size());
  bool ok = n == static_cast<ssize_t>(text.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) fail_io("cannot append to", p);
}

}  // namespace

json to_json(const Entry& e) {
  return {{"id", e.id}, {"kernel_class", e.kernel_class}, {"arch", e.arch}, {"bottleneck", e.bottleneck},
          {"language", e.language}, {"dtype", e.dtype}, {"action_category", e.action_category},
          {"change", e.change}, {"evidence", e.evidence}, {"outcome", e.outcome}, {"speedup", e.speedup},
          {"correctness", e.correctness}, {"roofline_pct_before", opt(e.roofline_pct_before)},
          {"roofline_pct_after", opt(e.roofline_pct_after)},
          {"followed", e.followed ? json(*e.followed) : json()}, {"source", e.source},
          {"recorded_at", e.recorded_at}, {"evidence_count", e.evidence_count}, {"speedups", e.speedups},
          {"sources", e.sources}};
}

Entry entry_from_json(const json& j) {
  if (!j.is_object()) throw Error("experience record: not a JSON object", ExitCode::schema_invalid);
  Entry e;
  e.kernel_class = need_string(j, "kernel_class");
  e.arch = need_string(j, "arch");
  e.bottleneck = need_string(j, "bottleneck");
  e.language = need_string(j, "language");
  e.dtype = need_string(j, "dtype");
  e.action_category = need_string(j, "action_category");
  require_known(kernel_classes(), e.kernel_class);
  require_known(arches(), e.arch);
  require_known(bottlenecks(), e.bottleneck);
  require_known(languages(), e.language);
  require_known(dtypes(), e.dtype);
  require_action_category(e.action_category);
  e.change = j.value("change", "");
  if (j.contains("evidence") && j["evidence"].is_array()) e.evidence = j["evidence"].get<std::vector<std::string>>();
  e.outcome = need_string(j, "outcome");
  if (e.outcome != "success" && e.outcome != "neutral" && e.outcome != "failure") {
    throw Error("experience record: outcome '" + e.outcome + "' is not success, neutral or failure",
                ExitCode::schema_invalid);
  }
  if (!j.contains("speedup") || !j["speedup"].is_number() || j["speedup"].get<double>() <= 0) {
    throw Error("experience record: 'speedup' must be a positive ratio", ExitCode::schema_invalid);
  }
  e.speedup = j["speedup"].get<double>();
  e.correctness = need_string(j, "correctness");
  e.roofline_pct_before = opt_num(j, "roofline_pct_before");
  e.roofline_pct_after = opt_num(j, "roofline_pct_after");
  if (j.contains("followed") && j["followed"].is_string()) e.followed = j["followed"].get<std::string>();
  e.source = j.value("source", "");
  e.recorded_at = need_string(j, "recorded_at");
  e.evidence_count = j.value("evidence_count", 1);
  if (j.contains("speedups") && j["speedups"].is_array()) e.speedups = j["speedups"].get<std::vector<double>>();
  if (j.contains("sources") && j["sources"].is_array()) e.sources = j["sources"].get<std::vector<std::string>>();
  if (e.speedups.empty()) e.speedups = {e.speedup};
  if (e.sources.empty()) e.sources = {e.source};
  e.id = j.value("id", "");
  if (e.id.empty()) e.id = entry_id(e);
  return e;
}

std::string entry_id(const Entry& e) {
  std::string key = e.kernel_class + "|" + e.arch + "|" + e.bottleneck + "|" + e.language + "|" + e.dtype + "|" +
                    e.action_category + "|" + e.source + "|" + e.recorded_at;
  return core::sha256_hex(key).substr(0, 16);
}

json to_json(const LedgerLine& l) {
  return {{"recommendation", l.recommendation}, {"plan", l.plan}, {"outcome", l.outcome},
          {"speedup", l.speedup}, {"recorded_at", l.recorded_at}};
}

fs::path default_store_dir() {
  if (const char* d = std::getenv("KGO_EXPERIENCE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x && fs::path(x).is_absolute()) {
    return fs::path(x) / "kgo" / "experience";
  }
  const char* home = std::getenv("HOME");
  if (!home || !*home) {
    throw Error("no experience store: neither $KGO_EXPERIENCE_DIR, $XDG_DATA_HOME nor $HOME is set; pass --store DIR",
                ExitCode::usage);
  }
  return fs::path(home) / ".local" / "share" / "kgo" / "experience";
}

fs::path store_dir(const std::optional<fs::path>& flag) { return flag ? *flag : default_store_dir(); }

StoreLock::StoreLock(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error("cannot create the experience store " + dir.string() + ": " + ec.message(), ExitCode::not_writable);
  fs::path p = dir / ".lock";
  m_fd = ::open(p.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (m_fd < 0) fail_io("cannot open", p);
  while (::flock(m_fd, LOCK_EX) != 0) {
    if (errno != EINTR) fail_io("cannot lock", p);
  }
}

StoreLock::~StoreLock() {
  if (m_fd >= 0) ::close(m_fd);
}

namespace {

// Calls parse(line, line number) for each non-empty line of `text`, in chunks on several threads; each
// chunk's results come back in file order. A line that throws is skipped and named.
template <class T, class Parse>
void parse_lines(std::string_view text, const char* file, Parse&& parse, std::vector<T>& out,
                 std::vector<std::string>& skipped) {
  constexpr size_t k_chunk_bytes = 256 * 1024;
  std::vector<size_t> starts = {0};
  while (starts.back() < text.size()) {
    size_t cut = std::min(starts.back() + k_chunk_bytes, text.size());
    cut = cut < text.size() ? std::min(text.find('\n', cut), text.size()) + 1 : cut;
    starts.push_back(std::min(cut, text.size()));
  }
  size_t chunks = starts.size() - 1;
  std::vector<std::vector<T>> parsed(chunks);
  std::vector<std::vector<std::string>> bad(chunks);
  std::vector<int> first_line(chunks, 1);
  for (size_t c = 1; c < chunks; ++c) {
    first_line[c] = first_line[c - 1] +
                    static_cast<int>(std::count(text.begin() + static_cast<long>(starts[c - 1]),
                                                text.begin() + static_cast<long>(starts[c]), '\n'));
  }
  core::parallel_for(chunks, [&](size_t c) {
    int no = first_line[c] - 1;
    for (size_t pos = starts[c]; pos < starts[c + 1];) {
      size_t end = std::min(text.find('\n', pos), starts[c + 1]);
      std::string_view line = text.substr(pos, end - pos);
      pos = end + 1;
      ++no;
      if (line.empty()) continue;
      try {
        parsed[c].push_back(parse(json::parse(line.begin(), line.end())));
      } catch (const std::exception& ex) {
        bad[c].push_back(std::string(file) + ":" + std::to_string(no) + ": " + ex.what());
      }
    }
  }, 1);
  for (size_t c = 0; c < chunks; ++c) {
    std::move(parsed[c].begin(), parsed[c].end(), std::back_inserter(out));
    std::move(bad[c].begin(), bad[c].end(), std::back_inserter(skipped));
  }
}

}  // namespace

Loaded load(const fs::path& dir) {
  Loaded out;
  if (auto text = core::try_read_file(dir / "experience.jsonl")) {
    parse_lines(*text, "experience.jsonl", [](const json& j) { return entry_from_json(j); }, out.entries, out.skipped);
  }
  if (auto text = core::try_read_file(dir / "ledger.jsonl")) {
    parse_lines(*text, "ledger.jsonl", [](const json& j) {
      return LedgerLine{j.at("recommendation").get<std::string>(), j.value("plan", ""), j.at("outcome").get<std::string>(),
                        j.value("speedup", 0.0), j.value("recorded_at", "")};
    }, out.ledger, out.skipped);
  }
  return out;
}

void append_entry(const fs::path& dir, const Entry& e) {
  entry_from_json(to_json(e));  // refuse before writing anything
  append_line(dir, "experience.jsonl", to_json(e).dump());
}

void append_ledger(const fs::path& dir, const LedgerLine& l) { append_line(dir, "ledger.jsonl", to_json(l).dump()); }

void rewrite_entries(const fs::path& dir, const std::vector<Entry>& entries) {
  std::string text;
  for (const auto& e : entries) text += to_json(e).dump() + "\n";
  core::write_file_atomic(dir / "experience.jsonl", text);
}

}  // namespace kgo::experience
