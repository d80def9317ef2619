#include "specs/scan.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "gpu-wiki-index/metrics.hpp"
#include "specs/json_walk.hpp"
#include "specs/text.hpp"

namespace kgo::specs {

namespace {

// "measured" / "measurement(s)" as a whole word that no negation precedes ("not measured",
// "never measured", "non-measured"); "unmeasured" and "measuredly" are other words.
bool says_measured(const std::string& text) {
  std::string l = lower(text);
  auto alpha = [&](size_t i) { return std::isalpha(static_cast<unsigned char>(l[i])) != 0; };
  for (const char* w : {"measured", "measurements", "measurement"}) {
    std::string word = w;
    for (size_t at = l.find(word); at != std::string::npos; at = l.find(word, at + 1)) {
      size_t end = at + word.size();
      if ((at > 0 && alpha(at - 1)) || (end < l.size() && alpha(end))) continue;
      size_t p = at;
      while (p > 0 && !alpha(p - 1)) --p;  // the word before, across spaces and "-"
      size_t b = p;
      while (b > 0 && alpha(b - 1)) --b;
      std::string prev = l.substr(b, p - b);
      if (prev == "not" || prev == "never" || prev == "no" || prev == "non" || prev == "without" ||
          prev == "nor" || prev == "t") {
        continue;  // "t" is the tail of "isn't", "wasn't", "aren't"
      }
      return true;
    }
  }
  return false;
}

bool has_any(const std::string& lowered, std::initializer_list<const char*> words) {
  for (const char* w : words) {
    if (lowered.find(w) != std::string::npos) return true;
  }
  return false;
}

// The unit-like word right after a number ("TB/s", "SMs"), lower-cased; `pos` is after the number.
std::string unit_after(const std::string& line, size_t pos, size_t* unit_end) {
  size_t i = pos;
  if (i < line.size() && (line[i] == ' ' || line[i] == '-')) ++i;
  size_t b = i;
  while (i < line.size() && (std::isalpha(static_cast<unsigned char>(line[i])) || line[i] == '/')) ++i;
  std::string unit = lower(std::string_view(line).substr(b, i - b));
  // Spelled out: "3.35 terabytes per second" is "terabytes/s".
  for (std::string_view per : {" per second", " per sec", " a second"}) {
    if (!unit.empty() && unit.find('/') == std::string::npos &&
        lower(std::string_view(line).substr(i, per.size())) == per) {
      unit += "/s";
      i += per.size();
      break;
    }
  }
  *unit_end = i;
  return unit;
}

std::string classify_unit(const std::string& u) {
  static const std::set<std::string> bandwidth = {
      "b/s", "kb/s", "mb/s", "gb/s", "tb/s", "pb/s", "kib/s", "mib/s", "gib/s", "tib/s", "gb/sec",
      "tb/sec", "mb/sec", "gbps", "tbps", "gbit/s", "gibps", "bytes/s", "kilobytes/s", "megabytes/s",
      "gigabytes/s", "terabytes/s", "petabytes/s", "gigabits/s", "terabits/s"};
  static const std::set<std::string> flops = {
      "flops", "flop/s", "gflops", "gflop/s", "tflops", "tflop/s", "pflops", "pflop/s", "teraflops",
      "petaflops", "tops", "top/s", "gops", "pops", "tflops/s", "tiops", "gigaflops", "flops/s",
      "teraflops/s", "petaflops/s"};
  static const std::set<std::string> clock = {"hz", "khz", "mhz", "ghz", "hertz", "megahertz", "gigahertz"};
  static const std::set<std::string> count = {"sm", "sms", "cu", "cus"};
  static const std::set<std::string> regs = {"registers", "regs", "vgprs", "sgprs", "vgpr", "sgpr"};
  static const std::set<std::string> size = {"kb", "mb", "gb", "tb", "kib", "mib", "gib", "tib",
                                             "kilobytes", "megabytes", "gigabytes", "terabytes"};
  if (bandwidth.count(u)) return "bandwidth";
  if (flops.count(u)) return "flop_rate";
  if (clock.count(u)) return "clock";
  if (count.count(u)) return "count";
  if (regs.count(u)) return "registers";
  if (size.count(u)) return "size";
  return "";
}

bool labelled_hardware(const std::string& label) {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k = {
        "sm count", "number of sms", "streaming multiprocessors", "(sms)", "compute units", "cu count",
        "num_sms", "num_cus", "registers per sm", "registers per cu", "register file", "max registers",
        "l1 cache", "l2 cache", "shared memory per", "lds size", "lds per", "hbm bandwidth",
        "memory bandwidth", "peak tflops", "peak flops", "peak bandwidth", "boost clock", "peak clock",
        "max clock", "memory capacity", "vram", "tensor core", "tflops", "infinity cache"};
    for (const auto& m : wiki::canonical_metrics()) {
      if (m.find('_') != std::string::npos) k.push_back(m);
    }
    return k;
  }();
  std::string l = lower(label);
  for (const auto& k : keys) {
    if (l.find(k) != std::string::npos) return true;
  }
  return false;
}

const std::string k_times = "\xC3\x97";  // ×

// A documentation example such as `<gpu-wiki>/path:line` (the README template's wording): inside
// inline code, with a path naming no file (no extension) or no path at all.
bool is_placeholder(const std::string& line, const CitationMatch& m) {
  size_t ticks = static_cast<size_t>(std::count(line.begin(), line.begin() + static_cast<long>(m.begin), '`'));
  if (ticks % 2 == 0) return false;
  if (!m.citation) return true;
  const std::string& path = m.citation->path;
  std::string last = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  return last.find('.') == std::string::npos;
}

}  // namespace

std::vector<NumberSite> hardware_numbers(const std::string& line) {
  std::vector<NumberSite> out;
  const std::string l = lower(line);
  const bool size_context = has_any(l, {"cache", "l1", "l2", "l3", "llc", "lds", "smem", "shared memory", "hbm",
                                        "vram", "dram", "device memory", "gpu memory", "memory capacity",
                                        "register", "per sm", "per cu"});
  const bool reg_context = has_any(l, {"per sm", "per cu", "register file", "max", "limit", "32-bit"});
  for (const auto& t : numbers_in(line)) {
    size_t unit_end = t.end;
    std::string unit = unit_after(line, t.end, &unit_end);
    std::string after = trim(std::string_view(line).substr(t.end, 12));
    bool times32 = after.rfind(k_times + " 32-bit", 0) == 0 || after.rfind("x 32-bit", 0) == 0;
    if (!times32 && (unit == "x" || (!after.empty() && after[0] == '%'))) continue;  // ratios, percentages
    std::string kind = classify_unit(unit);
    // "FLOPs" without a prefix counts operations (a kernel's work); "FLOPS", "FLOP/s" and
    // "TFLOPs" are rates.
    std::string written = std::string(std::string_view(line).substr(t.end, unit_end - t.end));
    written = trim(written, " -");
    if (kind == "flop_rate" && (written == "FLOPs" || written == "FLOP")) kind.clear();
    if (kind == "size" && !size_context) kind.clear();
    if (kind == "registers" && !reg_context) kind.clear();
    if (times32) kind = "registers";
    if (!kind.empty()) {
      std::string shown = trim(std::string_view(line).substr(t.begin, unit_end - t.begin));
      std::string unit = trim(std::string_view(line).substr(t.end, unit_end - t.end), " -");
      out.push_back(NumberSite{0, shown, kind, trim(line), t.value, t.text, unit, t.begin, unit_end});
      continue;
    }
    if (!after.empty() && after.rfind(k_times, 0) == 0) continue;  // a ratio or a shape, not a spec
    // A number with a unit of its own is what its unit says: "= 20 FLOP/byte" after a label that
    // names peaks is a ratio, not a hardware number; bare numbers ("SM count: 132") are labelled.
    if (!unit.empty() && unit != "sm" && unit != "sms" && unit != "cu" && unit != "cus" && unit != "cores") continue;
    // "SM count: 132", "| L2 Cache | 50 |": a number right after a hardware label.
    size_t d = t.begin;
    while (d > 0 && (line[d - 1] == ' ' || line[d - 1] == '*' || line[d - 1] == '`')) --d;
    if (d == 0 || (line[d - 1] != ':' && line[d - 1] != '=' && line[d - 1] != '|')) continue;
    size_t delim = d - 1;
    size_t start = delim == 0 ? std::string::npos : line.find_last_of("|,;", delim - 1);
    size_t from = start == std::string::npos ? 0 : start + 1;
    std::string label = line.substr(from, delim - from);
    if (labelled_hardware(label)) {
      out.push_back(NumberSite{0, trim(label) + ": " + t.text, "labelled", trim(line), t.value, t.text, "", t.begin,
                               t.end});
    }
  }
  return out;
}

FileScan scan_markdown(const std::string& text) {
  FileScan scan;
  auto lines = split_lines(text);
  bool in_fence = false;
  int exempt_level = 0;       // heading level that made the section a measurement section
  bool in_table = false, table_exempt = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    const int n = static_cast<int>(i + 1);
    std::string t = trim(line);
    if (t.rfind("```", 0) == 0) in_fence = !in_fence;
    int level = 0;
    while (!in_fence && level < static_cast<int>(line.size()) && line[level] == '#') ++level;
    if (level > 0 && level <= 6 && level < static_cast<int>(line.size()) && line[level] == ' ') {
      if (exempt_level && level <= exempt_level) exempt_level = 0;
      if (!exempt_level && says_measured(line)) exempt_level = level;
    }
    bool row = !t.empty() && t[0] == '|';
    if (row && !in_table) table_exempt = says_measured(line);
    in_table = row;
    if (!row) table_exempt = false;
    auto found = find_citations(line);
    found.erase(std::remove_if(found.begin(), found.end(), [&](const CitationMatch& m) { return is_placeholder(line, m); }),
                found.end());
    for (auto& m : found) scan.citations.push_back(CitationSite{n, std::move(m), t});
    if (exempt_level || table_exempt || says_measured(line)) continue;
    for (auto& site : hardware_numbers(line)) {
      site.line = n;
      if (found.empty()) {
        scan.uncited.push_back(std::move(site));
      } else {
        site.text = line;
        scan.beside_citations.push_back(std::move(site));
      }
    }
  }
  return scan;
}

FileScan scan_json(const std::string& text) {
  FileScan scan;
  static const std::set<std::string> exempt = {"performance", "correctness", "profile_evidence", "environment"};
  auto is_exempt = [&](const std::vector<std::string>& path) {
    return std::any_of(path.begin(), path.end(), [&](const std::string& k) { return exempt.count(k) > 0; });
  };
  bool ok = walk_json(text, [&](const JsonValue& v) {
    if (v.is_string) {
      auto found = find_citations(v.text);
      for (auto& m : found) scan.citations.push_back(CitationSite{v.line, std::move(m), trim(v.text)});
      if (is_exempt(v.path) || says_measured(v.text)) return;
      for (auto& site : hardware_numbers(v.text)) {
        site.line = v.line;
        if (found.empty()) {
          scan.uncited.push_back(std::move(site));
        } else {
          site.text = v.text;
          scan.beside_citations.push_back(std::move(site));
        }
      }
      return;
    }
    if (is_exempt(v.path) || v.path.empty()) return;
    std::string key = lower(v.path.back());
    bool ratio = has_any(key, {"pct", "percent", "ratio", "utilization", "util", "fraction"});
    bool hardware = has_any(key, {"bandwidth", "tflops", "gflops", "flops", "clock", "mhz", "ghz", "sm_count",
                                  "num_sms", "cu_count", "l2", "l1_cache", "cache_size", "smem", "lds",
                                  "registers_per", "hbm", "vram", "memory_capacity", "peak"}) ||
                    wiki::is_canonical_metric(key);
    if (hardware && !ratio) {
      scan.uncited.push_back(NumberSite{v.line, v.path.back() + ": " + v.text, "labelled",
                                        "\"" + v.path.back() + "\": " + v.text});
    }
  });
  if (!ok) {
    scan = scan_markdown(text);
    scan.error = "not valid JSON; scanned as text";
  }
  return scan;
}

FileScan scan_file(const std::string& path, const std::string& text) {
  if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0) return scan_json(text);
  return scan_markdown(text);
}

}  // namespace kgo::specs
