// Sentences that state one figure: "The H100 SXM has a theoretical peak bandwidth of 3.35 TB/s."
// The sentence's words around the figure are read as a `label: value` line's label is, so the
// same classifier names the metric and voids kernel results, ridge points and per-block sizes.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "core/strings.hpp"
#include "gpu-wiki-index/metrics.hpp"
#include "gpu-wiki-index/parse_common.hpp"
#include "gpu-wiki-index/units.hpp"

namespace kgo::wiki {

namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }
bool word_char(char c) {
  return digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.' || c == ',';
}

// Where the sentence's only standalone number starts (digits with no letter, digit, '_', '.' or
// ',' right before them); npos when there is none or more than one.
size_t only_number(std::string_view s) {
  size_t at = std::string_view::npos;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!digit(s[i]) || (i > 0 && word_char(s[i - 1]))) continue;
    if (at != std::string_view::npos) return std::string_view::npos;
    at = i;
  }
  return at;
}

}  // namespace

std::vector<std::string> sentences(std::string_view line) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= line.size(); ++i) {
    bool end = i == line.size() ||
               ((line[i] == '.' || line[i] == '!' || line[i] == '?' || line[i] == ';') &&
                (i + 1 == line.size() || line[i + 1] == ' ' || line[i + 1] == '\t'));
    if (!end) continue;
    std::string s = trim(line.substr(start, i - start));
    if (!s.empty()) out.push_back(std::move(s));
    start = i + 1;
  }
  return out;
}

std::optional<ProseFigure> prose_figure(std::string_view sentence) {
  std::string s = plain_text(sentence);
  size_t at = only_number(s);
  if (at == std::string::npos) return std::nullopt;
  // An approximation written before the number belongs to the value ("about 3.35 TB/s").
  std::string before = lower(std::string_view(s).substr(0, at));
  for (std::string_view w : {"~", "\xE2\x89\x88", "about ", "approximately ", "approx ", "circa ", "up to "}) {
    if (before.size() >= w.size() && before.compare(before.size() - w.size(), w.size(), w) == 0) {
      at -= w.size();
      break;
    }
  }
  size_t end = std::min(s.find_first_of(";(", at), s.find(", ", at));  // "1,980" keeps its comma
  std::string value = trim(std::string_view(s).substr(at, end == std::string::npos ? end : end - at));
  auto pv = parse_value(value);
  if (!pv || pv->unit.empty()) return std::nullopt;
  size_t unit_end = value.find(pv->unit, value.find(pv->number_text) + pv->number_text.size());
  std::string after = unit_end == std::string::npos ? "" : trim(value.substr(unit_end + pv->unit.size()));
  std::string label = trim(trim(s.substr(0, at)) + " " + after);
  if (metrics_from_text(label).empty()) return std::nullopt;
  return ProseFigure{label, value};
}

ProseFigures prose_figures(std::string_view sentence) {
  ProseFigures out;
  std::string s = plain_text(sentence);
  std::vector<size_t> at;
  for (size_t i = 0; i < s.size(); ++i) {
    if (digit(s[i]) && (i == 0 || !word_char(s[i - 1]))) {
      at.push_back(i);
      while (i + 1 < s.size() && (digit(s[i + 1]) || s[i + 1] == '.' || s[i + 1] == ',')) ++i;
    }
  }
  std::vector<std::vector<std::string>> metrics;
  size_t from = 0;  // where the previous figure's words end
  for (size_t k = 0; k < at.size(); ++k) {
    size_t prev = from, start = at[k], stop = k + 1 < at.size() ? at[k + 1] : s.size();
    std::string before = lower(std::string_view(s).substr(prev, start - prev));
    for (std::string_view w : {"~", "\xE2\x89\x88", "about ", "approximately ", "up to "}) {
      if (before.size() >= w.size() && before.compare(before.size() - w.size(), w.size(), w) == 0) {
        start -= w.size();
        break;
      }
    }
    size_t end = std::min({s.find_first_of(";(", at[k]), s.find(", ", at[k]), stop});
    std::string value = trim(std::string_view(s).substr(start, end - start));
    auto pv = parse_value(value);
    // "70B model", "2.4x", "76%": no hardware figure (a bare "B" glued to a number counts weights);
    // its words stay with the next figure.
    if (!pv || pv->unit.empty() || pv->unit == "B") continue;
    size_t unit_end = value.find(pv->unit, value.find(pv->number_text) + pv->number_text.size());
    std::string after = unit_end == std::string::npos ? "" : trim(value.substr(unit_end + pv->unit.size()));
    auto noun = metrics_from_text(pv->unit);  // "304 CUs", "128 SMs": the noun names the metric
    bool count_noun = noun.size() == 1 && metric_dimension(noun[0]) == "count";
    if (!known_unit(pv->unit) && !count_noun) continue;
    if (count_noun) {
      after = pv->unit + " " + after;
      value = pv->number_text;
    }
    from = end;
    std::string label = trim(trim(std::string_view(s).substr(prev, start > prev ? start - prev : 0)) + " " + after);
    auto named = metrics_from_text(label);
    // "B200's 8 TB/s HBM3e": a memory named beside a rate is that memory's bandwidth.
    auto q = normalize(pv->value, pv->unit);
    if (q && q->dimension == "bytes_per_s" && named.size() == 1 && named[0] == "memory_capacity") {
      label += " bandwidth";
      named = metrics_from_text(label);
    }
    if (named.empty()) {  // a hardware figure of no metric: what the sentence's others are is unsure
      out.figures.clear();
      out.refused = "'" + value + "' has no words of its own naming what it measures";
      return out;
    }
    out.figures.push_back(ProseFigure{label, value});
    metrics.push_back(named);
  }
  // Two figures whose nearest words name the same metric: which is which cannot be told.
  for (size_t a = 0; a < metrics.size(); ++a) {
    for (size_t b = 0; b < a; ++b) {
      for (const auto& m : metrics[a]) {
        if (std::find(metrics[b].begin(), metrics[b].end(), m) == metrics[b].end()) continue;
        out.refused = "'" + out.figures[b].value + "' and '" + out.figures[a].value + "' are both near words naming " +
                      m + "; state one figure per sentence";
        out.figures.clear();
        return out;
      }
    }
  }
  return out;
}

}  // namespace kgo::wiki
