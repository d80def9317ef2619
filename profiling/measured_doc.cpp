#include "profiling/measured_doc.hpp"

#include <fmt/format.h>

namespace kgo::profiling {

std::string display_value(const MeasuredFigure& f) {
  if (f.dimension == "bytes_per_s") return fmt::format("{:.2f} TB/s", f.base_value / 1e12);
  if (f.dimension == "flop_per_s") return fmt::format("{:.1f} TFLOPS", f.base_value / 1e12);
  if (f.dimension == "seconds") return fmt::format("{:.2f} us", f.base_value * 1e6);
  return fmt::format("{:g}", f.base_value);
}

std::string render_measured_doc(const MeasuredDoc& d) {
  std::string s = "---\nproduct: " + d.product + "\nkind: measured\n---\n";
  s += "# Measured maxima: " + d.product + ", " + d.date + "\n\n";
  s += d.method;
  if (!s.empty() && s.back() != '\n') s += '\n';
  s += "\n";
  for (const auto& f : d.figures) {
    s += "- " + f.metric + ": " + display_value(f) + (f.note.empty() ? "" : " (" + f.note + ")") + "\n";
  }
  return s;
}

std::filesystem::path measured_doc_path(const std::filesystem::path& wiki_root, const std::string& product,
                                        const std::string& date) {
  std::string name;
  for (char c : product) {
    if (c == ' ' || c == '/') name += '-';
    else name += c;
  }
  return wiki_root / "measured" / (name + "-" + date + ".md");
}

}  // namespace kgo::profiling
