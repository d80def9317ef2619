#pragma once
// The measured-maxima wiki document `kgo ceiling --record` writes:
// `<wiki>/measured/<product>-<YYYY-MM-DD>.md` with front matter (product, kind: measured), a
// title, a method paragraph, then one `- <canonical_metric>: <value> <unit> (<note>)` line per
// figure (format agreed in notes/wiki_format.md; the wiki index reads them as measured facts).
#include <filesystem>
#include <string>
#include <vector>

namespace kgo::profiling {

struct MeasuredFigure {
  std::string metric;     // canonical: hbm_bandwidth, hbm_bandwidth_copy, fp32, bf16_tensor, launch_latency
  double base_value = 0;    // bytes/s, FLOP/s or seconds
  std::string dimension;  // "bytes_per_s", "flop_per_s" or "seconds"
  std::string note;       // pattern / method, e.g. "copy, read+write bytes, median of 20, 4 GiB arrays"
};

struct MeasuredDoc {
  std::string product;  // canonical product name, e.g. "H200"
  std::string date;     // YYYY-MM-DD
  std::string method;   // one paragraph: tool, method, clocks, driver
  std::vector<MeasuredFigure> figures;
};

// "4.31 TB/s", "690.2 TFLOPS", "2.10 us" (decimal prefixes).
std::string display_value(const MeasuredFigure& f);

std::string render_measured_doc(const MeasuredDoc& doc);

// <wiki>/measured/<product, spaces as '-'>-<date>.md
std::filesystem::path measured_doc_path(const std::filesystem::path& wiki_root, const std::string& product,
                                        const std::string& date);

}  // namespace kgo::profiling
