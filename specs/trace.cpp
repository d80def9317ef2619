#include "specs/trace.hpp"

#include <cmath>
#include <optional>

#include "core/strings.hpp"
#include "gpu-wiki-index/index.hpp"
#include "specs/text.hpp"

namespace kgo::specs {

namespace {

// Spelled-out units as the index's unit table writes them ("terabytes per second" -> "TB/s").
std::string unit_symbol(const std::string& unit) {
  static const std::vector<std::pair<std::string, std::string>> words = {
      {"petabytes", "PB"}, {"terabytes", "TB"}, {"gigabytes", "GB"}, {"megabytes", "MB"}, {"kilobytes", "KB"},
      {"bytes", "B"},      {"teraflops", "TFLOPS"}, {"petaflops", "PFLOPS"}, {"gigaflops", "GFLOPS"},
      {"gigahertz", "GHz"}, {"megahertz", "MHz"}, {"hertz", "Hz"}};
  std::string l = lower(unit);
  for (const auto& [w, sym] : words) {
    if (l.rfind(w, 0) != 0) continue;
    std::string rest = l.substr(w.size());
    if (rest.rfind(" per second", 0) == 0 || rest.rfind("/s", 0) == 0) return sym + "/s";
    return sym == "TFLOPS" || sym == "PFLOPS" || sym == "GFLOPS" ? sym : (rest.empty() ? sym : unit);
  }
  if (l == "sm" || l == "sms" || l == "cu" || l == "cus") return "";
  if (l.size() > 2 && l.compare(l.size() - 2, 2, "/s") == 0 && l.find("flop") != std::string::npos) {
    return unit.substr(0, unit.size() - 2) + "/s";  // "TFLOP/s"
  }
  return unit;
}

std::optional<wiki::Quantity> quantity(double value, const std::string& unit) {
  return wiki::normalize(value, unit_symbol(unit));
}

bool states(double value, const std::string& unit, const CitedValue& c) {
  if (unit.empty() || c.unit.empty()) return same_value(value, c.value);
  auto a = quantity(value, unit), b = quantity(c.value, c.unit);
  return a && b && a->dimension == b->dimension && same_value(a->value, b->value);
}

bool states_any(double value, const std::string& unit, const std::vector<CitedValue>& cited) {
  for (const auto& c : cited) {
    if (states(value, unit, c)) return true;
  }
  return false;
}

// Half a unit of the last digit written: "2.68" -> 0.005, "791.5" -> 0.05, "3.35e12" -> 5e9.
double half_ulp(const std::string& text) {
  std::string t = text;
  if (!t.empty() && t[0] == '~') t.erase(0, 1);
  int exponent = 0;
  size_t e = t.find_first_of("eE");
  if (e != std::string::npos) {
    exponent = std::atoi(t.c_str() + e + 1);
    t = t.substr(0, e);
  }
  size_t dot = t.find('.');
  int decimals = dot == std::string::npos ? 0 : static_cast<int>(t.size() - dot - 1);
  return 0.5 * std::pow(10.0, exponent - decimals);
}

// "= 0.8 x 3.35 TB/s", "= 3.35 TB/s x 0.8", "= 3.35 TB/s / 2" right after the number.
bool derived(const NumberSite& n, const std::vector<CitedValue>& cited) {
  const std::string& line = n.text;
  if (n.end >= line.size()) return false;
  size_t eq = line.find_first_not_of(' ', n.end);
  if (eq == std::string::npos || line[eq] != '=') return false;
  std::string rest = line.substr(eq + 1);
  auto nums = numbers_in(rest);
  if (nums.size() < 2) return false;
  // Each operand: its number and the unit word after it ("TB/s"), "" for a plain factor.
  auto operand_unit = [&](const NumberToken& t, size_t limit) {
    size_t b = rest.find_first_not_of(' ', t.end);
    if (b == std::string::npos || b >= limit) return std::string();
    size_t e = rest.find_first_of(" ;,)", b);
    std::string u = rest.substr(b, std::min(e == std::string::npos ? rest.size() : e, limit) - b);
    return u == "x" || u == "\xC3\x97" || u == "*" || u == "/" ? std::string() : u;
  };
  const NumberToken& a = nums[0];
  const NumberToken& b = nums[1];
  std::string ua = operand_unit(a, b.begin), ub = operand_unit(b, rest.size());
  // Between the operands: the operator alone, or after the first operand's own citation.
  std::string between = rest.substr(a.end, b.begin - a.end);
  if (!ua.empty()) between = between.substr(between.find(ua) + ua.size());
  between = trim(between);
  bool times = false, divide = false;
  for (std::string_view op : {"x", "\xC3\x97", "*", "/"}) {
    if (between.size() < op.size() || between.compare(between.size() - op.size(), op.size(), op) != 0) continue;
    std::string before = trim(between.substr(0, between.size() - op.size()));
    if (!before.empty() && (before.rfind("<-", 0) != 0 || before.find(' ', 3) != std::string::npos)) continue;
    (op == "/" ? divide : times) = true;
  }
  if (times == divide) return false;
  // Exactly one operand is a cited hardware figure, the other a plain factor.
  const NumberToken* hw = !ua.empty() ? &a : &b;
  const NumberToken* factor = !ua.empty() ? &b : &a;
  const std::string& hw_unit = !ua.empty() ? ua : ub;
  if (hw_unit.empty() || (!ua.empty() && !ub.empty()) || (divide && hw != &a)) return false;
  if (!states_any(hw->value, hw_unit, cited)) return false;
  double expected = divide ? hw->value / factor->value : hw->value * factor->value;
  // Into the number's own unit, then compared at the precision it is written with.
  auto per_hw = quantity(1, hw_unit), per_n = quantity(1, n.unit);
  if (!per_hw || !per_n || per_hw->dimension != per_n->dimension) return false;
  expected *= per_hw->value / per_n->value;
  return std::fabs(expected - n.value) <= half_ulp(n.value_text) * (1 + 1e-9);
}

}  // namespace

bool traces(const NumberSite& n, const std::vector<CitedValue>& cited) {
  return states_any(n.value, n.unit, cited) || (!n.unit.empty() && derived(n, cited));
}

std::string cited_text(const std::vector<CitedValue>& cited) {
  std::string out;
  for (const auto& c : cited) {
    out += (out.empty() ? "" : ", ") + format_number(c.value) + (c.unit.empty() ? "" : " " + c.unit);
  }
  return out.empty() ? "none" : out;
}

}  // namespace kgo::specs
