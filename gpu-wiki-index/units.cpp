#include "gpu-wiki-index/units.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <cmath>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gpu-wiki-index/index.hpp"
#include "gpu-wiki-index/memo.hpp"

namespace kgo::wiki {

namespace {

struct UnitInfo {
  const char* spelling;  // lower case
  const char* dimension;
  double factor;
  bool hardware;  // a cue that prose states a hardware quantity
};

const std::vector<UnitInfo>& units_by_length() {
  static const std::vector<UnitInfo> t = [] {
    std::vector<UnitInfo> v = {
        {"b/s", "bytes_per_s", 1, true},        {"kb/s", "bytes_per_s", 1e3, true},
        {"mb/s", "bytes_per_s", 1e6, true},     {"gb/s", "bytes_per_s", 1e9, true},
        {"tb/s", "bytes_per_s", 1e12, true},    {"pb/s", "bytes_per_s", 1e15, true},
        {"kib/s", "bytes_per_s", 1024.0, true}, {"mib/s", "bytes_per_s", 1048576.0, true},
        {"gib/s", "bytes_per_s", 1073741824.0, true},
        {"tib/s", "bytes_per_s", 1099511627776.0, true},
        {"gb/sec", "bytes_per_s", 1e9, true},   {"tb/sec", "bytes_per_s", 1e12, true},
        {"gbps", "bytes_per_s", 1e9, true},     {"tbps", "bytes_per_s", 1e12, true},
        {"mbps", "bytes_per_s", 1e6, true},
        {"flops", "flop_per_s", 1, true},       {"flop/s", "flop_per_s", 1, true},
        {"gflops", "flop_per_s", 1e9, true},    {"gflop/s", "flop_per_s", 1e9, true},
        {"tflops", "flop_per_s", 1e12, true},   {"tflop/s", "flop_per_s", 1e12, true},
        {"teraflops", "flop_per_s", 1e12, true}, {"pflops", "flop_per_s", 1e15, true},
        {"pflop/s", "flop_per_s", 1e15, true},  {"petaflops", "flop_per_s", 1e15, true},
        {"gops", "flop_per_s", 1e9, true},      {"tops", "flop_per_s", 1e12, true},
        {"top/s", "flop_per_s", 1e12, true},    {"pops", "flop_per_s", 1e15, true},
        {"b", "bytes", 1, false},               {"byte", "bytes", 1, false},
        // A capacity in bytes takes binary prefixes however it is spelled (see normalize() in index.hpp).
        {"bytes", "bytes", 1, false},           {"kb", "bytes", 1024.0, true},
        {"mb", "bytes", 1048576.0, true},       {"gb", "bytes", 1073741824.0, true},
        {"tb", "bytes", 1099511627776.0, true}, {"kib", "bytes", 1024.0, true},
        {"mib", "bytes", 1048576.0, true},      {"gib", "bytes", 1073741824.0, true},
        {"tib", "bytes", 1099511627776.0, true},
        {"hz", "hz", 1, true},                  {"khz", "hz", 1e3, true},
        {"mhz", "hz", 1e6, true},               {"ghz", "hz", 1e9, true},
        {"w", "watts", 1, true},                {"watt", "watts", 1, true},
        {"watts", "watts", 1, true},            {"kw", "watts", 1e3, true},
        {"s", "seconds", 1, false},             {"sec", "seconds", 1, false},
        {"ms", "seconds", 1e-3, false},         {"us", "seconds", 1e-6, false},
        {"\xC2\xB5s", "seconds", 1e-6, false},  {"\xCE\xBCs", "seconds", 1e-6, false},
        {"ns", "seconds", 1e-9, false},
        {"count", "count", 1, false},           {"sm", "count", 1, true},
        {"sms", "count", 1, true},              {"cu", "count", 1, true},
        {"cus", "count", 1, true},              {"cores", "count", 1, false},
        {"registers", "count", 1, false},       {"threads", "count", 1, false},
        {"warps", "count", 1, false},           {"blocks", "count", 1, false},
        {"units", "count", 1, false},
    };
    std::stable_sort(v.begin(), v.end(), [](const UnitInfo& a, const UnitInfo& b) {
      return std::string_view(a.spelling).size() > std::string_view(b.spelling).size();
    });
    return v;
  }();
  return t;
}

char lc(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }
bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The unit spelled at s[pos] (followed by a non-alphanumeric), longest first.
const UnitInfo* unit_at(std::string_view s, size_t pos, size_t* len) {
  static const std::array<bool, 256> starts = [] {
    std::array<bool, 256> t{};
    for (const auto& u : units_by_length()) t[static_cast<unsigned char>(u.spelling[0])] = true;
    return t;
  }();
  if (pos >= s.size() || !starts[static_cast<unsigned char>(lc(s[pos]))]) return nullptr;
  for (const auto& u : units_by_length()) {
    std::string_view sp = u.spelling;
    if (pos + sp.size() > s.size()) continue;
    bool same = true;
    for (size_t i = 0; i < sp.size() && same; ++i) same = lc(s[pos + i]) == sp[i];
    if (!same) continue;
    size_t end = pos + sp.size();
    if (end < s.size() && (is_alnum(s[end]) || s[end] == '_')) continue;
    *len = sp.size();
    return &u;
  }
  return nullptr;
}

const UnitInfo* find_unit(const std::string& unit) {
  static const std::unordered_map<std::string_view, const UnitInfo*> by_spelling = [] {
    std::unordered_map<std::string_view, const UnitInfo*> m;
    for (const auto& u : units_by_length()) m.emplace(u.spelling, &u);
    return m;
  }();
  std::string l;
  for (char c : unit) l += lc(c);
  auto it = by_spelling.find(l);
  return it == by_spelling.end() ? nullptr : it->second;
}

// Length of the number at s[pos] ("1,978.9", "3.35", "65536"), 0 when none or malformed.
size_t number_at(std::string_view s, size_t pos, bool* malformed = nullptr) {
  size_t i = pos;
  while (i < s.size() && is_digit(s[i])) ++i;
  size_t int_digits = i - pos;
  if (int_digits == 0) return 0;
  bool commas = false;
  while (i + 1 < s.size() && s[i] == ',' && is_digit(s[i + 1])) {
    size_t j = i + 1;
    while (j < s.size() && is_digit(s[j])) ++j;
    if (j - i - 1 != 3 || int_digits > 3) {
      if (malformed) *malformed = true;
      return 0;
    }
    i = j;
    commas = true;
  }
  // "16 896" (plain_text makes thin and no-break spaces plain): groups of exactly three digits.
  auto space_group = [&](size_t k) {
    return k + 3 < s.size() && s[k] == ' ' && is_digit(s[k + 1]) && is_digit(s[k + 2]) && is_digit(s[k + 3]) &&
           (k + 4 == s.size() || (!is_digit(s[k + 4]) && s[k + 4] != ','));
  };
  while (!commas && int_digits <= 3 && space_group(i)) i += 4;
  if (i + 1 < s.size() && s[i] == '.' && is_digit(s[i + 1])) {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i;
  }
  return i - pos;
}

bool starts_with_ci(std::string_view s, size_t pos, std::string_view p) {
  if (pos + p.size() > s.size()) return false;
  for (size_t i = 0; i < p.size(); ++i) {
    if (lc(s[pos + i]) != p[i]) return false;
  }
  return true;
}

size_t skip_spaces(std::string_view s, size_t pos) {
  while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t')) ++pos;
  return pos;
}

// Calls f(pos, len) for each standalone number: digits not glued to a letter before, and
// followed either by a non-letter or by a unit ("700W").
template <class F>
void for_each_number(std::string_view s, F f) {
  size_t i = 0;
  while (i < s.size()) {
    if (!is_digit(s[i]) || (i > 0 && (is_alnum(s[i - 1]) || s[i - 1] == '_' || s[i - 1] == '.'))) {
      ++i;
      continue;
    }
    size_t n = number_at(s, i);
    if (n == 0) {
      while (i < s.size() && (is_digit(s[i]) || s[i] == ',')) ++i;
      continue;
    }
    size_t end = i + n;
    size_t ulen = 0;
    if (end < s.size() && std::isalpha(static_cast<unsigned char>(s[end])) && !unit_at(s, end, &ulen)) {
      i = end;
      while (i < s.size() && is_alnum(s[i])) ++i;
      continue;
    }
    f(i, n);
    i = end;
  }
}

// The value of a number that number_at() found ("1,978.9" -> 1978.9). Out of a double's range it is
// what strtod makes of it (infinite or zero), which parse_value refuses or keeps as written.
double decimal(std::string_view number) {
  std::string digits;
  for (char c : number) {
    if (c != ',' && c != ' ') digits += c;
  }
  double v = 0;
  if (std::from_chars(digits.data(), digits.data() + digits.size(), v).ec != std::errc()) {
    v = std::strtod(digits.c_str(), nullptr);
  }
  return v;
}

}  // namespace

std::string utf8_prefix(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  size_t n = max_bytes;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;  // continuation byte
  return std::string(text.substr(0, n));
}

std::string plain_text(std::string_view text) {
  constexpr std::string_view blank = " \t\r\n";
  // The common text has no emphasis, code span or odd space: only its ends are trimmed.
  bool markup = false;  // a plain loop: find_first_of scans the set once per character
  for (size_t i = 0; i < text.size() && !markup; ++i) {
    char c = text[i];
    markup = c == '*' || c == '_' || c == '`' || c == '\xC2' || c == '\xE2';
  }
  if (!markup) {
    size_t b = text.find_first_not_of(blank);
    if (b == std::string_view::npos) return "";
    return std::string(text.substr(b, text.find_last_not_of(blank) - b + 1));
  }
  std::string s;
  s.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if ((text[i] == '*' || text[i] == '_') && i + 1 < text.size() && text[i + 1] == text[i]) {
      ++i;
      continue;
    }
    if (text[i] == '`') continue;
    if (text[i] != '\xC2' && text[i] != '\xE2') {  // the common byte: no odd space starts here
      s += text[i];
      continue;
    }
    if (text.compare(i, 2, "\xC2\xA0") == 0) {
      s += ' ';
      ++i;
      continue;
    }
    if (text.compare(i, 3, "\xE2\x80\x89") == 0 || text.compare(i, 3, "\xE2\x80\xAF") == 0) {
      s += ' ';
      i += 2;
      continue;
    }
    s += text[i];
  }
  size_t b = s.find_first_not_of(blank);
  if (b == std::string::npos) return "";
  s.erase(s.find_last_not_of(blank) + 1);
  s.erase(0, b);
  if (s.size() >= 2 && (s.front() == '*' || s.front() == '_') && s.back() == s.front()) {
    s = s.substr(1, s.size() - 2);
  }
  return s;
}

bool known_unit(const std::string& unit) { return unit.empty() || find_unit(unit) != nullptr; }

// Bits are not bytes: after a prefix letter, a lower-case "b" (or "bit") is a bit, as in SI
// ("Gb", "Tb/s", "Gbps", "Gbit/s"), and an upper-case "B" a byte ("GB", "TB/s", "TBps").
// Returns the byte spelling of a bit unit ("Tb/s" -> "TB/s"), or "" when `unit` is not in bits.
static std::string bits_as_bytes(const std::string& unit) {
  if (unit.size() < 2 || std::string("kKMGTP").find(unit[0]) == std::string::npos) return "";
  size_t b = unit[1] == 'i' ? 2 : 1;
  if (b >= unit.size() || unit[b] != 'b' || unit.compare(b, 4, "byte") == 0) return "";
  std::string rest = unit.substr(b + 1);
  if (rest.rfind("its", 0) == 0) rest = rest.substr(3);
  else if (rest.rfind("it", 0) == 0) rest = rest.substr(2);
  return unit.substr(0, b) + "B" + rest;
}

std::optional<Quantity> normalize(double value, const std::string& unit) {
  if (unit.empty()) return Quantity{value, "count"};
  if (std::string bytes = bits_as_bytes(unit); !bytes.empty()) {
    const UnitInfo* u = find_unit(bytes);
    if (!u || (std::string_view(u->dimension) != "bytes" && std::string_view(u->dimension) != "bytes_per_s")) {
      return std::nullopt;
    }
    return Quantity{value * u->factor / 8, u->dimension};
  }
  const UnitInfo* u = find_unit(unit);
  if (!u) return std::nullopt;
  return Quantity{value * u->factor, u->dimension};
}

std::optional<Quantity> normalize_decimal_capacity(double value, const std::string& unit) {
  auto q = normalize(value, unit);
  if (!q || q->dimension != "bytes" || unit.size() < 2 || unit[1] == 'i' || unit[1] == 'I') return q;
  size_t power = std::string_view("kmgt").find(lc(unit[0])) + 1;  // npos + 1 == 0: no prefix
  q->value *= std::pow(1000.0 / 1024.0, static_cast<double>(power));
  return q;
}

bool has_number(std::string_view text) {
  bool found = false;
  for_each_number(text, [&](size_t, size_t) { found = true; });
  return found;
}

bool has_hardware_quantity(std::string_view text) {
  bool found = false;
  for_each_number(text, [&](size_t pos, size_t len) {
    size_t p = skip_spaces(text, pos + len);
    size_t ulen = 0;
    const UnitInfo* u = unit_at(text, p, &ulen);
    if (u && u->hardware) found = true;
    if (starts_with_ci(text, p, "per sm") || starts_with_ci(text, p, "per cu")) found = true;
  });
  return found;
}

namespace {

std::optional<std::string> find_header_unit(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (i > 0 && (is_alnum(text[i - 1]) || text[i - 1] == '_')) continue;
    size_t len = 0;
    const UnitInfo* u = unit_at(text, i, &len);
    // Header units are rates, sizes, clocks or power; a bare "B" or "s" in a header is a word,
    // unless it stands alone in parentheses ("Power Consumption (W)").
    bool enclosed = i > 0 && text[i - 1] == '(' && i + len < text.size() && text[i + len] == ')';
    if (u && (len > 1 || enclosed) && std::string_view(u->dimension) != "count") {
      return std::string(text.substr(i, len));
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> unit_in_text(std::string_view text) {
  return memoized<std::optional<std::string>>(text, [](std::string_view t) { return find_header_unit(t); });
}

std::optional<ParsedValue> parse_value(std::string_view text, std::string* why) {
  auto fail = [&](const std::string& reason) -> std::optional<ParsedValue> {
    if (why) *why = reason;
    return std::nullopt;
  };
  std::string s = plain_text(text);
  if (why) why->clear();
  ParsedValue v;
  size_t pos = 0;
  auto is = [&s](std::string_view word) { return s.size() == word.size() && starts_with_ci(s, 0, word); };
  if (s.empty() || is("-") || is("\xE2\x80\x94") || is("\xE2\x80\x93") || is("n/a") || is("na") ||
      is("tbd") || is("?") || starts_with_ci(s, 0, "unknown")) {
    return fail("");
  }
  for (std::string_view p : {"~", "\xE2\x89\x88", "approximately ", "approx. ", "approx ", "about ",
                             "circa ", "ca. "}) {
    if (starts_with_ci(s, pos, p)) {
      v.approximate = true;
      pos = skip_spaces(s, pos + p.size());
      break;
    }
  }
  if (starts_with_ci(s, pos, "up to ")) pos = skip_spaces(s, pos + 6);
  for (std::string_view p : {">", "<", "\xE2\x89\xA5", "\xE2\x89\xA4", "over ", "more than ",
                             "at least ", "less than ", "above ", "below "}) {
    if (starts_with_ci(s, pos, p) && has_number(s.substr(pos + p.size()))) {
      return fail("'" + s + "' is a bound, not a value");
    }
  }
  bool malformed = false;
  size_t n = number_at(s, pos, &malformed);
  if (malformed) return fail("'" + s + "' has a malformed thousands separator");
  if (n == 0) {
    if (has_number(s)) return fail("'" + s + "' does not start with its number");
    return fail("");
  }
  v.number_text = s.substr(pos, n);
  v.value = decimal(v.number_text);
  pos += n;
  size_t p = skip_spaces(s, pos);
  // "65,536 × 32-bit": a count of 32-bit registers.
  for (std::string_view times : {"\xC3\x97", "x", "*"}) {
    if (!starts_with_ci(s, p, times)) continue;
    if (times == "x" && p + 1 < s.size() && std::isalpha(static_cast<unsigned char>(s[p + 1]))) break;
    size_t q = skip_spaces(s, p + times.size());
    size_t w = number_at(s, q);
    if (w > 0 && (starts_with_ci(s, q + w, "-bit") || starts_with_ci(s, q + w, " bit"))) {
      p = q + w + 4;
      break;
    }
    if (times == "*" && (q >= s.size() || !is_digit(s[q]))) {
      return fail("'" + s + "' carries a footnote marker; say dense or sparse in the label");
    }
    // "2 × 132 = 264": the result is the value, once the product checks out.
    size_t e = skip_spaces(s, q + w);
    size_t r = e < s.size() && s[e] == '=' ? skip_spaces(s, e + 1) : std::string::npos;
    size_t rn = r == std::string::npos ? 0 : number_at(s, r);
    if (w == 0 || rn == 0) return fail("'" + s + "' is an expression, not a value");
    double result = decimal(s.substr(r, rn));
    double product = v.value * decimal(s.substr(q, w));
    if (std::fabs(product - result) > 1e-9 * std::fabs(result)) {
      return fail("'" + s + "' is an expression whose result does not match its terms");
    }
    v.number_text = s.substr(r, rn);
    v.value = result;
    pos = r + rn;
    p = skip_spaces(s, pos);
    break;
  }
  for (std::string_view range : {"-", "\xE2\x80\x93", "\xE2\x80\x94", "to ", "/"}) {
    if (starts_with_ci(s, p, range) && skip_spaces(s, p + range.size()) < s.size() &&
        is_digit(s[skip_spaces(s, p + range.size())])) {
      return fail("'" + s + "' is a range or an expression, not one value");
    }
  }
  size_t ulen = 0;
  if (unit_at(s, p, &ulen)) {
    v.unit = s.substr(p, ulen);
    p += ulen;
  } else if (p == pos && p < s.size() && std::isalpha(static_cast<unsigned char>(s[p]))) {
    return fail("'" + s + "' has a unit kgo does not know");
  }
  std::string rest = s.substr(p);
  if (!rest.empty() && (rest[0] == '*' || rest.rfind("\xC2\xB9", 0) == 0 || rest.rfind("\xC2\xB2", 0) == 0)) {
    return fail("'" + s + "' carries a footnote marker; say dense or sparse in the label");
  }
  std::string outside;
  int depth = 0;
  for (char c : rest) {
    if (c == '(' || c == '[') ++depth;
    else if ((c == ')' || c == ']') && depth > 0) --depth;
    else if (depth == 0) outside += c;
  }
  if (has_number(outside)) return fail("'" + s + "' holds more than one number");
  if (outside.find('=') != std::string::npos || outside.find("\xE2\x89\x88") != std::string::npos ||
      outside.find('+') != std::string::npos) {
    return fail("'" + s + "' is an expression, not a value");
  }
  std::string rest_lower;
  for (char c : rest) rest_lower += lc(c);
  bool says_sparse = rest_lower.find("sparse") != std::string::npos ||
                     rest_lower.find("sparsity") != std::string::npos;
  if (says_sparse && rest_lower.find("without sparsity") == std::string::npos &&
      rest_lower.find("dense") == std::string::npos) {
    v.sparse = true;
  }
  if (!std::isfinite(v.value)) return fail("'" + s + "' is not a finite number");
  return v;
}

}  // namespace kgo::wiki
