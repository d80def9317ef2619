#include "roofline/format.hpp"

#include <cmath>

#include <fmt/format.h>

namespace kgo::roofline {

std::string fmt_count(double v) {
  if (!std::isfinite(v) || v != std::floor(v) || std::fabs(v) >= 9.0e15) {
    return fmt_sig(v, 6);
  }
  std::string digits = fmt::format("{}", static_cast<long long>(std::fabs(v)));
  std::string out;
  int n = static_cast<int>(digits.size());
  for (int i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

std::string fmt_sig(double v, int digits) {
  if (!std::isfinite(v)) return fmt::format("{}", v);
  if (v == 0) return "0";
  double mag = std::fabs(v);
  if (mag >= 1e15 || mag < 1e-4) return fmt::format("{:.{}e}", v, digits - 1);
  int exponent = static_cast<int>(std::floor(std::log10(mag)));
  int decimals = std::max(0, digits - 1 - exponent);
  std::string s = fmt::format("{:.{}f}", v, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string fmt_bandwidth(double bytes_per_s) { return fmt_sig(bytes_per_s / 1e12) + " TB/s"; }

std::string fmt_flop_rate(double flop_per_s) { return fmt_sig(flop_per_s / 1e12) + " TFLOP/s"; }

std::string fmt_us(double seconds) { return fmt_sig(seconds * 1e6) + " us"; }

}  // namespace kgo::roofline
