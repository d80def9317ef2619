#include "iterate/hypothesis.hpp"

#include <cmath>
#include <regex>

#include <fmt/format.h>

#include "core/files.hpp"
#include "core/markdown.hpp"
#include "core/memory.hpp"
#include "core/strings.hpp"
#include "iterate/plan.hpp"

namespace kgo::iterate {

using nlohmann::json;

namespace {

const std::vector<std::string>& measured_fields() {
  static const std::vector<std::string> f = {"latency_us", "bandwidth_gbps", "tflops", "bandwidth_peak_utilization_pct",
                                             "tflops_peak_utilization_pct"};
  return f;
}

}  // namespace

std::string Evidence::text() const { return fmt::format("{} = {} ({})", metric, value, file); }

std::optional<double> parse_quoted_number(const std::string& text) {
  static const std::regex num(R"(^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$)");
  if (!std::regex_match(text, num)) return std::nullopt;
  return std::stod(text);
}

bool quotes(double quoted, double actual) {
  if (actual == 0) return quoted == 0;
  return std::abs(quoted - actual) <= 0.005 * std::abs(actual);
}

bool workspace_timed(const fs::path& ws) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(ws / "profiles", ec)) {
    if (fs::exists(e.path() / "profile.json", ec)) return true;
  }
  for (const auto& r : load_records(ws)) {
    if (!r.masked() && r.j["performance"].is_object()) return true;
  }
  return false;
}

namespace {

std::string strip_comments(const std::string& body) {
  std::string clean;
  for (size_t pos = 0;;) {
    size_t open = body.find("<!--", pos);
    clean += body.substr(pos, open == std::string::npos ? std::string::npos : open - pos);
    if (open == std::string::npos) break;
    size_t close = body.find("-->", open);
    if (close == std::string::npos) break;
    pos = close + 3;
  }
  return clean;
}

void add_evidence(const std::string& value, Hypothesis& h, std::vector<std::string>& problems) {
  static const std::regex ev(R"(^([A-Za-z_][\w.]*)\s*=\s*(\S+?)\s*%?\s*\(((?:profiles|memory)/[^)\s]+)\)$)");
  std::smatch v;
  std::optional<double> x;
  if (value == "none") h.evidence_none = true;
  else if (std::regex_match(value, v, ev) && (x = parse_quoted_number(v[2].str()))) h.evidence.push_back({v[1].str(), *x, v[3].str()});
  else problems.push_back("Hypothesis: evidence '" + value + "' is not `metric = value (profiles/vN/profile.json)` or none");
}

void add_expected(const std::string& value, Hypothesis& h, std::vector<std::string>& problems) {
  static const std::regex ex(R"(^([a-z_]+)\s+([-+]\d+(?:\.\d+)?)\s*%$)");
  std::smatch v;
  if (value == "none") {
    h.expected_none = true;
  } else if (!std::regex_match(value, v, ex)) {
    problems.push_back("Hypothesis: expected '" + value + "' is not `<metric> <+N%|-N%>` (e.g. latency_us -15%)");
  } else if (std::find(measured_fields().begin(), measured_fields().end(), v[1].str()) == measured_fields().end()) {
    problems.push_back("Hypothesis: expected metric '" + v[1].str() +
                       "' is not one kgo measures (latency_us, bandwidth_gbps, tflops, "
                       "bandwidth_peak_utilization_pct, tflops_peak_utilization_pct)");
  } else {
    h.expected.push_back({v[1].str(), std::stod(v[2].str())});
  }
}

// What the workspace allows: numbers where something was timed, `none` and correctness where not.
void check_rules(const Hypothesis& h, int changes, bool timed, std::vector<std::string>& problems) {
  if (changes == 0) problems.push_back("Hypothesis: no `- change:` line; state the one change this iteration makes");
  if (changes > 1) problems.push_back("Hypothesis: " + std::to_string(changes) + " `change:` lines; one change per iteration");
  static const std::regex has_number(R"(\d)");
  static const std::regex correctness(R"(correct|pass)", std::regex::icase);
  if (timed) {
    if (h.evidence.empty()) {
      problems.push_back("Hypothesis: no `- evidence: metric = value (profiles/vN/profile.json)` line; cite the "
                         "profile or record numbers the change rests on (`kgo profile`); `none` is only for a "
                         "workspace where nothing was timed");
    }
    if (h.expected.empty()) problems.push_back("Hypothesis: no `- expected: <metric> <+N%|-N%>` line; predict the movement as a number");
    if (h.decision_rule.empty() || !std::regex_search(h.decision_rule, has_number)) {
      problems.push_back("Hypothesis: `- decision_rule:` must say, with a number, when the iteration is accepted "
                         "(e.g. accept if latency_us falls by at least 5% and correctness is PASS)");
    }
    return;
  }
  if (h.evidence.empty() && !h.evidence_none) {
    problems.push_back("Hypothesis: no `- evidence:` line; nothing was timed or profiled in this workspace, so cite "
                       "a number of a stamped memory/vN.json (e.g. correctness.max_abs_err) or write `- evidence: none`");
  }
  if (h.expected.empty() && !h.expected_none) {
    problems.push_back("Hypothesis: no `- expected:` line; write `<metric> <+N%|-N%>`, or `none` where nothing is timed");
  }
  if (h.decision_rule.empty() ||
      !(std::regex_search(h.decision_rule, has_number) || std::regex_search(h.decision_rule, correctness))) {
    problems.push_back("Hypothesis: `- decision_rule:` must say when the iteration is accepted; where nothing is "
                       "timed: accept if correctness is PASS");
  }
}

}  // namespace

Hypothesis parse_hypothesis(const std::string& body, std::vector<std::string>& problems, bool timed) {
  static const std::regex item(R"(^\s*[-*]\s*(change|evidence|expected|decision_rule|follows)\s*:\s*(.*)$)");
  Hypothesis h;
  int changes = 0;
  std::string clean = strip_comments(body);
  size_t pos = 0;
  while (pos <= clean.size()) {
    size_t eol = clean.find('\n', pos);
    std::string line = clean.substr(pos, eol == std::string::npos ? std::string::npos : eol - pos);
    pos = eol == std::string::npos ? clean.size() + 1 : eol + 1;
    std::smatch m;
    if (!std::regex_match(line, m, item)) continue;
    std::string key = m[1].str(), value = trim(m[2].str(), " \t\r`");
    if (value.empty()) continue;
    if (key == "change") {
      ++changes;
      h.change = value;
    } else if (key == "evidence") {
      add_evidence(value, h, problems);
    } else if (key == "expected") {
      add_expected(value, h, problems);
    } else if (key == "decision_rule") {
      h.decision_rule = value;
    } else if (value != "none") {
      h.follows = value;
    }
  }
  check_rules(h, changes, timed, problems);
  return h;
}

void verify_evidence(const fs::path& ws, const Hypothesis& h, std::vector<std::string>& problems) {
  for (const auto& e : h.evidence) {
    if (e.file.find("..") != std::string::npos) {
      problems.push_back("Hypothesis: evidence file '" + e.file + "' leaves the workspace");
      continue;
    }
    auto text = core::try_read_file(ws / e.file);
    if (!text) {
      problems.push_back("Hypothesis: evidence file " + e.file + " does not exist; cite a profiles/vN/profile.json "
                         "(`kgo profile`) or a memory/vN.json that exists");
      continue;
    }
    json j = json::parse(*text, nullptr, false);
    const json* v = nullptr;
    if (!j.is_discarded()) {
      for (const char* root : {"numbers", "performance", ""}) {
        std::string dotted = std::string(root) + (*root ? "." : "") + e.metric;
        v = core::find_path(j, dotted);
        if (v && v->is_number()) break;
        v = nullptr;
      }
    }
    if (!v) {
      problems.push_back("Hypothesis: " + e.file + " holds no number '" + e.metric + "'");
    } else if (!quotes(e.value, v->get<double>())) {
      problems.push_back(fmt::format("Hypothesis: evidence {} = {} but {} says {}; quote the measured value (within "
                                     "0.5%, any notation)", e.metric, e.value, e.file, v->get<double>()));
    }
  }
}

std::optional<Hypothesis> plan_hypothesis(const fs::path& ws, int n) {
  auto text = core::try_read_file(plan_path(ws, n));
  if (!text) return std::nullopt;
  auto body = core::section_body(*text, "Hypothesis");
  if (!body) return std::nullopt;
  std::vector<std::string> problems;
  Hypothesis h = parse_hypothesis(*body, problems);
  if (h.expected.empty() && h.change.empty()) return std::nullopt;
  return h;
}

json predicted_vs_measured(const Hypothesis& h, const std::vector<Record>& records, int n, const json& rec) {
  const Record* base = nullptr;
  for (const auto& r : records) {
    if (r.n < n && r.accepted() && !r.masked() && r.j["performance"].is_object()) base = &r;
  }
  bool measured_here = base && rec["performance"].is_object();
  json checks = json::array();
  for (const auto& e : h.expected) {
    json c = {{"metric", e.metric}, {"predicted_pct", e.change_pct}, {"measured_pct", nullptr}, {"held", nullptr}};
    const json& a = measured_here ? rec["performance"].value(e.metric, json()) : json();
    const json& b = measured_here ? base->j["performance"].value(e.metric, json()) : json();
    if (a.is_number() && b.is_number() && b.get<double>() > 0) {
      double measured = (a.get<double>() / b.get<double>() - 1.0) * 100.0;
      c["measured_pct"] = std::round(measured * 100.0) / 100.0;
      // Held: the right direction and at least half the predicted size.
      c["held"] = measured * e.change_pct > 0 && std::abs(measured) >= 0.5 * std::abs(e.change_pct);
    }
    checks.push_back(c);
  }
  json evidence = json::array();
  for (const auto& e : h.evidence) evidence.push_back(e.text());
  std::string status = rec["correctness"].is_object() ? rec["correctness"].value("status", "") : "";
  return {{"baseline", base ? json(core::version_name(base->n)) : json()},
          {"change", h.change},
          {"evidence", evidence},
          {"checks", checks},
          {"decision_rule", h.decision_rule},
          {"correctness", status.empty() ? json() : json(status)}};
}

std::string prediction_text(const json& rec) {
  const json& p = rec.value("prediction", json());
  if (!p.is_object()) return "";
  std::string out;
  for (const auto& c : p.value("checks", json::array())) {
    std::string measured = c["measured_pct"].is_number() ? fmt::format("{:+.1f}%", c["measured_pct"].get<double>()) : "n/a";
    std::string verdict = c["held"].is_boolean() ? (c["held"].get<bool>() ? "held" : "missed") : "unmeasured";
    out += fmt::format("{}{} {:+.0f}% / {} {}", out.empty() ? "" : "; ", c.value("metric", "?"),
                       c["predicted_pct"].get<double>(), measured, verdict);
  }
  if (out.empty()) {
    std::string status = p.value("correctness", json()).is_string() ? p["correctness"].get<std::string>() : "unchecked";
    out = "correctness only (" + p.value("decision_rule", std::string("no rule")) + ") / " + status;
  }
  return out;
}

std::string hypothesis_text(const Hypothesis& h) {
  std::string out = h.change;
  std::string expected;
  for (const auto& e : h.expected) expected += fmt::format("{}{} {:+g}%", expected.empty() ? "" : ", ", e.metric, e.change_pct);
  out += "; expected: " + (expected.empty() ? std::string("none (nothing timed)") : expected);
  if (!h.evidence.empty()) {
    out += "; evidence:";
    for (const auto& e : h.evidence) out += " " + e.text();
  }
  if (!h.decision_rule.empty()) out += "; rule: " + h.decision_rule;
  return out;
}

}  // namespace kgo::iterate
