#include "gpu-wiki-index/units.hpp"

#include <gtest/gtest.h>

#include "gpu-wiki-index/index.hpp"

namespace kgo::wiki {
namespace {

Quantity q(double v, const std::string& unit) {
  auto r = normalize(v, unit);
  EXPECT_TRUE(r.has_value()) << unit;
  return r.value_or(Quantity{});
}

TEST(Normalize, DecimalRatesAndSizes) {
  EXPECT_DOUBLE_EQ(q(3.35, "TB/s").value, 3.35e12);
  EXPECT_EQ(q(3.35, "TB/s").dimension, "bytes_per_s");
  EXPECT_DOUBLE_EQ(q(3350, "GB/s").value, q(3.35, "TB/s").value);
  EXPECT_DOUBLE_EQ(q(989.4, "TFLOPS").value, 989.4e12);
  EXPECT_EQ(q(989.4, "TFLOPS").dimension, "flop_per_s");
  EXPECT_DOUBLE_EQ(q(1978.9, "TOPS").value, 1978.9e12);
  EXPECT_EQ(q(1978.9, "TOPS").dimension, "flop_per_s");
  EXPECT_DOUBLE_EQ(q(2.5, "PFLOPS").value, 2.5e15);
  EXPECT_DOUBLE_EQ(q(64, "GB/s").value, 64e9);  // a rate stays decimal whatever a capacity does
  EXPECT_DOUBLE_EQ(q(1, "MB/s").value, 1e6);
}

TEST(Normalize, BinaryPrefixes) {
  EXPECT_DOUBLE_EQ(q(64, "KiB").value, 65536);
  EXPECT_DOUBLE_EQ(q(4, "MiB").value, 4194304);
  EXPECT_DOUBLE_EQ(q(1, "GiB").value, 1073741824);
}

// A capacity is binary however it is spelled: the CUDA guide's "228 KB" of shared memory per SM is the
// 233,472 bytes an H100 reports, its "50 MB" L2 52,428,800 bytes.
TEST(Normalize, CapacitiesAreBinaryHoweverSpelled) {
  EXPECT_DOUBLE_EQ(q(228, "KB").value, 233472);
  EXPECT_EQ(q(228, "KB").dimension, "bytes");
  EXPECT_DOUBLE_EQ(q(228, "KB").value, q(228, "KiB").value);
  EXPECT_DOUBLE_EQ(q(228, "kB").value, 233472);  // SI's spelling of the prefix: the same capacity
  EXPECT_DOUBLE_EQ(q(50, "MB").value, 52428800);
  EXPECT_DOUBLE_EQ(q(80, "GB").value, 80 * 1073741824.0);
  EXPECT_DOUBLE_EQ(q(1, "TB").value, 1099511627776.0);
  EXPECT_DOUBLE_EQ(q(233472, "B").value, 233472);
  EXPECT_DOUBLE_EQ(q(16, "Gb").value, 16 * 1073741824.0 / 8);  // a DRAM die's density, in bits
}

TEST(Normalize, DecimalCapacityIsTheOldReading) {
  auto d = [](double v, const std::string& unit) { return normalize_decimal_capacity(v, unit).value_or(Quantity{}); };
  EXPECT_DOUBLE_EQ(d(228, "KB").value, 228e3);
  EXPECT_DOUBLE_EQ(d(50, "MB").value, 50e6);
  EXPECT_DOUBLE_EQ(d(80, "GB").value, 80e9);
  EXPECT_DOUBLE_EQ(d(64, "KiB").value, 65536);  // written binary: binary
  EXPECT_DOUBLE_EQ(d(512, "B").value, 512);
  EXPECT_DOUBLE_EQ(d(3.35, "TB/s").value, 3.35e12);  // not a capacity: normalize()'s
  EXPECT_FALSE(normalize_decimal_capacity(1, "furlongs").has_value());
}

TEST(Normalize, ClocksPowerTimesCounts) {
  EXPECT_DOUBLE_EQ(q(1830, "MHz").value, 1.83e9);
  EXPECT_DOUBLE_EQ(q(1.83, "GHz").value, 1.83e9);
  EXPECT_EQ(q(1.83, "GHz").dimension, "hz");
  EXPECT_DOUBLE_EQ(q(700, "W").value, 700);
  EXPECT_EQ(q(700, "W").dimension, "watts");
  EXPECT_DOUBLE_EQ(q(2.1, "us").value, 2.1e-6);
  EXPECT_DOUBLE_EQ(q(3, "ms").value, 3e-3);
  EXPECT_DOUBLE_EQ(q(500, "ns").value, 500e-9);
  EXPECT_EQ(q(2.1, "us").dimension, "seconds");
  EXPECT_EQ(q(132, "").dimension, "count");
  EXPECT_EQ(q(132, "SMs").dimension, "count");
  EXPECT_DOUBLE_EQ(q(132, "SMs").value, 132);
}

TEST(Normalize, CaseInsensitiveAndUnknown) {
  EXPECT_DOUBLE_EQ(q(3.35, "tb/s").value, 3.35e12);
  EXPECT_DOUBLE_EQ(q(1, "TFLOP/s").value, 1e12);
  EXPECT_FALSE(normalize(1, "furlongs").has_value());
  EXPECT_FALSE(normalize(1, "TB/fortnight").has_value());
}

TEST(Normalize, BitsAreNotBytes) {
  EXPECT_DOUBLE_EQ(q(3.35, "Tb/s").value, 3.35e12 / 8);
  EXPECT_DOUBLE_EQ(q(192, "Gb").value, 192 * 1073741824.0 / 8);
  EXPECT_DOUBLE_EQ(q(400, "Gbps").value, 400e9 / 8);
  EXPECT_DOUBLE_EQ(q(400, "Gbit/s").value, 400e9 / 8);
  EXPECT_DOUBLE_EQ(q(3.35, "TBps").value, 3.35e12);
  EXPECT_DOUBLE_EQ(q(80, "GB").value, 80 * 1073741824.0);
  EXPECT_EQ(q(3.35, "TBps").dimension, "bytes_per_s");
  EXPECT_DOUBLE_EQ(q(2, "PFLOPS").value, 2e15);
  EXPECT_DOUBLE_EQ(q(187.5, "TOPS").value, 187.5e12);
}

TEST(Utf8Prefix, NeverCutsACharacter) {
  std::string s = "ab\xC3\x97\xE2\x89\x88z";  // "ab×≈z"
  EXPECT_EQ(utf8_prefix(s, 3), "ab");
  EXPECT_EQ(utf8_prefix(s, 4), "ab\xC3\x97");
  EXPECT_EQ(utf8_prefix(s, 6), "ab\xC3\x97");
  EXPECT_EQ(utf8_prefix(s, 100), s);
}

ParsedValue pv(const std::string& text) {
  std::string why;
  auto r = parse_value(text, &why);
  EXPECT_TRUE(r.has_value()) << text << ": " << why;
  return r.value_or(ParsedValue{});
}

TEST(ParseValue, PlainAndUnits) {
  EXPECT_DOUBLE_EQ(pv("3.35 TB/s").value, 3.35);
  EXPECT_EQ(pv("3.35 TB/s").unit, "TB/s");
  EXPECT_EQ(pv("3.35TB/s").unit, "TB/s");
  EXPECT_EQ(pv("700W").unit, "W");
  EXPECT_EQ(pv("989.4").unit, "");
  EXPECT_EQ(pv("**989.4**").number_text, "989.4");
}

TEST(ParseValue, ThousandsSeparators) {
  EXPECT_DOUBLE_EQ(pv("1,978.9").value, 1978.9);
  EXPECT_EQ(pv("1,978.9").number_text, "1,978.9");
  EXPECT_DOUBLE_EQ(pv("16,896").value, 16896);
  EXPECT_DOUBLE_EQ(pv("1,830 MHz").value, 1830);
  std::string why;
  EXPECT_FALSE(parse_value("1,97 TB/s", &why));
  EXPECT_NE(why, "");
  EXPECT_FALSE(parse_value("1978,9", &why));
}

TEST(ParseValue, ThousandsSeparatedBySpaces) {
  EXPECT_DOUBLE_EQ(pv("16 896").value, 16896);
  EXPECT_DOUBLE_EQ(pv("16\xE2\x80\x89" "896").value, 16896);  // thin space
  EXPECT_DOUBLE_EQ(pv("16\xC2\xA0" "896 cores").value, 16896);  // no-break space
  EXPECT_DOUBLE_EQ(pv("1 024 KB").value, 1024);
  EXPECT_EQ(pv("1 024 KB").unit, "KB");
  EXPECT_DOUBLE_EQ(pv("2 039 GB/s").value, 2039);
  std::string why;
  for (const char* bad : {"16 89", "16 8960", "1234 567", "16 896,000", "1,234 567"}) {
    EXPECT_FALSE(parse_value(bad, &why).has_value()) << bad;
    EXPECT_NE(why, "") << bad;
  }
}

TEST(ParseValue, ProductTakesItsCheckedResult) {
  auto r = pv("2 \xC3\x97 132 = 264");
  EXPECT_DOUBLE_EQ(r.value, 264);
  EXPECT_EQ(r.number_text, "264");
  EXPECT_EQ(pv("2 x 40 = 80 GB").unit, "GB");
  std::string why;
  EXPECT_FALSE(parse_value("2 \xC3\x97 132 = 266", &why).has_value());
  EXPECT_NE(why.find("does not match"), std::string::npos) << why;
  EXPECT_FALSE(parse_value("2 \xC3\x97 132 = 264 + 8", &why).has_value());
}

TEST(ParseValue, FootnoteMarkers) {
  // A bracketed reference is no part of the value; a star or superscript may mean "with
  // sparsity" on vendor sheets, so it is refused until the label says which.
  EXPECT_DOUBLE_EQ(pv("989.4 TFLOPS [1]").value, 989.4);
  std::string why;
  for (const char* marked : {"1,979*", "1,979 TFLOPS*", "989.4\xC2\xB9", "989.4 TFLOPS\xC2\xB2"}) {
    EXPECT_FALSE(parse_value(marked, &why).has_value()) << marked;
    EXPECT_NE(why.find("footnote"), std::string::npos) << marked << ": " << why;
  }
}

TEST(ParseValue, ApproximateAndUpTo) {
  auto a = pv("~148");
  EXPECT_TRUE(a.approximate);
  EXPECT_DOUBLE_EQ(a.value, 148);
  EXPECT_TRUE(pv("\xE2\x89\x88 39.6 TFLOPS").approximate);
  auto u = pv("Up to 228 KB (configurable)");
  EXPECT_FALSE(u.approximate);
  EXPECT_DOUBLE_EQ(u.value, 228);
  EXPECT_EQ(u.unit, "KB");
  EXPECT_FALSE(pv("3.35 TB/s").approximate);
}

TEST(ParseValue, RegisterExpression) {
  auto r = pv("65,536 \xC3\x97 32-bit");
  EXPECT_DOUBLE_EQ(r.value, 65536);
  EXPECT_EQ(r.unit, "");
  EXPECT_DOUBLE_EQ(pv("65536 x 32-bit").value, 65536);
  std::string why;
  EXPECT_FALSE(parse_value("512 \xC3\x97 4 SIMD = 2048 32-bit VGPRs", &why));
  EXPECT_NE(why.find("expression"), std::string::npos);
}

TEST(ParseValue, TrailingWordsAndMemoryType) {
  auto r = pv("80 GB HBM3");
  EXPECT_DOUBLE_EQ(r.value, 80);
  EXPECT_EQ(r.unit, "GB");
  EXPECT_EQ(pv("141 GB HBM3e").unit, "GB");
  EXPECT_EQ(pv("132 (66 TPCs)").value, 132);
  EXPECT_EQ(pv("32 threads").unit, "threads");
}

TEST(ParseValue, SparseHint) {
  EXPECT_TRUE(pv("1,979 TFLOPS (with sparsity)").sparse);
  EXPECT_FALSE(pv("989.5 TFLOPS (without sparsity)").sparse);
  EXPECT_FALSE(pv("989.5 TFLOPS").sparse);
}

TEST(ParseValue, RejectsWhatIsNotOneValue) {
  for (const char* bad : {"3.35\xE2\x80\x93" "4.8 TB/s", "300-350 W", "989.4 / 3.35", "80 GB, 3.35 TB/s",
                          ">2,000 GB/s", "1,979*", "64K", "NVLink: 900 GB/s", "2 + 2 TB/s"}) {
    std::string why;
    EXPECT_FALSE(parse_value(bad, &why).has_value()) << bad;
    EXPECT_NE(why, "") << bad;
  }
}

TEST(ParseValue, NoValueAtAll) {
  for (const char* none : {"", "\xE2\x80\x94", "-", "UNKNOWN", "UNKNOWN (no vendor document)", "N/A",
                           "TBD", "Same as H100", "~High throughput", "HBM3"}) {
    std::string why = "x";
    EXPECT_FALSE(parse_value(none, &why).has_value()) << none;
    EXPECT_EQ(why, "") << none;
  }
}

TEST(Units, UnitInText) {
  EXPECT_EQ(unit_in_text("Peak TFLOPS").value_or(""), "TFLOPS");
  EXPECT_EQ(unit_in_text("Bandwidth (TB/s)").value_or(""), "TB/s");
  EXPECT_EQ(unit_in_text("Size (MB)").value_or(""), "MB");
  EXPECT_FALSE(unit_in_text("Value").has_value());
  EXPECT_FALSE(unit_in_text("With Sparsity").has_value());
  EXPECT_FALSE(unit_in_text("Streaming Multiprocessors (SMs)").has_value());
}

TEST(Units, NumbersAndHardwareQuantities) {
  EXPECT_TRUE(has_number("132"));
  EXPECT_TRUE(has_number("700W"));
  EXPECT_FALSE(has_number("HBM3"));
  EXPECT_FALSE(has_number("sm_90"));
  EXPECT_FALSE(has_number("4th gen"));
  EXPECT_FALSE(has_number("gfx942"));
  EXPECT_TRUE(has_hardware_quantity("share 256 KB per SM"));
  EXPECT_TRUE(has_hardware_quantity("3.35 TB/s"));
  EXPECT_TRUE(has_hardware_quantity("78 SMs"));
  EXPECT_TRUE(has_hardware_quantity("65536 per SM"));
  EXPECT_FALSE(has_hardware_quantity("4 warps = 1 warp group"));
  EXPECT_FALSE(has_hardware_quantity("Last Updated: 2026-03-18"));
  EXPECT_FALSE(has_hardware_quantity("a 2.1 us launch"));  // times are not datasheet figures
}

}  // namespace
}  // namespace kgo::wiki
