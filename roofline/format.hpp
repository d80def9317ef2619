#pragma once
// Number formatting shared by the roofline renderers: exact counts with thousands separators,
// significant-digit decimals, SI rates and microseconds.
#include <string>

namespace kgo::roofline {

// 134217728 -> "134,217,728"; non-integral or huge values fall back to 6 significant digits.
std::string fmt_count(double v);

// `digits` significant digits, trailing zeros trimmed: fmt_sig(3.015, 4) -> "3.015", 20.0 -> "20".
std::string fmt_sig(double v, int digits = 4);

// Rates in the units people quote: bytes/s -> "3.015 TB/s", FLOP/s -> "60.3 TFLOP/s".
std::string fmt_bandwidth(double bytes_per_s);
std::string fmt_flop_rate(double flop_per_s);

// Seconds as microseconds: 4.0066e-5 -> "40.07 us".
std::string fmt_us(double seconds);

}  // namespace kgo::roofline
