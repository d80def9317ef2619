// Text dumps of device-query tools: CUDA's deviceQuery sample, `nvidia-smi -q` and ROCm's
// rocminfo. Their labels are fixed by the tool, so each tool has a table of the labels that state
// a hardware figure; every other line is tool output, not a spec, and is neither a fact nor an issue.
#include <cctype>

#include "core/strings.hpp"
#include "gpu-wiki-index/parse_common.hpp"
#include "gpu-wiki-index/units.hpp"

namespace kgo::wiki {

namespace {

// A label of one tool: in `section` ("" = any; nvidia-smi and rocminfo nest lines under
// headings), `label` (lower case) states `metric`; a bare number is in `unit`.
struct DumpLabel {
  const char* section;
  const char* label;
  const char* metric;
  const char* unit;
};

// deviceQuery's global memory is what CUDA may allocate, not the capacity, and its register
// count is per block: neither is read. nvidia-smi's power limits are settings, not the TDP.
// rocminfo prints sizes in units of 1,024 bytes ("KB") and, on multi-die parts, the L2 of one die
// (MI300X: 4 MB of 8 x 4 MB), so its L2 is not read.
const std::vector<DumpLabel>& labels(DumpTool tool) {
  static const std::vector<DumpLabel> device_query = {
      {"", "gpu max clock rate", "boost_clock", "MHz"},
      {"", "l2 cache size", "l2_cache", "B"},
      {"", "total shared memory per multiprocessor", "smem_per_sm", "B"},
      {"", "maximum number of threads per multiprocessor", "threads_per_sm", ""},
      {"", "warp size", "warp_size", ""},
  };
  static const std::vector<DumpLabel> nvidia_smi = {
      {"fb memory usage", "total", "memory_capacity", "MiB"},
      {"max clocks", "sm", "boost_clock", "MHz"},
  };
  static const std::vector<DumpLabel> rocminfo = {
      {"", "compute unit", "sm_count", ""},
      {"", "max clock freq. (mhz)", "boost_clock", "MHz"},
      {"", "wavefront size", "warp_size", ""},
      {"", "max waves per cu", "warps_per_sm", ""},
      {"cache info", "l1", "l1_cache", "KiB"},
      {"cache info", "l3", "infinity_cache", "KiB"},
  };
  static const std::vector<DumpLabel> none;
  switch (tool) {
    case DumpTool::device_query: return device_query;
    case DumpTool::nvidia_smi: return nvidia_smi;
    case DumpTool::rocminfo: return rocminfo;
    default: return none;
  }
}

size_t indent_of(std::string_view line) {
  size_t n = line.find_first_not_of(" \t");
  return n == std::string_view::npos ? line.size() : n;
}

// The value as a plain "number unit": hex echoes ("64(0x40)"), restatements in parentheses
// ("1980 MHz (1.98 GHz)") and the tool's own spellings ("bytes", "Mhz") cleaned up.
std::string clean_value(std::string v, const DumpLabel& l) {
  size_t paren = v.find('(');
  if (paren != std::string::npos) {
    size_t close = v.find(')', paren);
    v = trim(v.substr(0, paren) + (close == std::string::npos ? "" : v.substr(close + 1)));
  }
  size_t end = 0;
  while (end < v.size() && (std::isdigit(static_cast<unsigned char>(v[end])) || v[end] == '.')) ++end;
  if (end == 0) return "";
  return v.substr(0, end) + (*l.unit ? std::string(" ") + l.unit : "");
}

class DumpParser {
 public:
  DumpParser(std::string rel, DumpTool tool) : m_rel(std::move(rel)), m_tool(tool) {}

  FileIndex run(std::string_view text) {
    std::vector<std::pair<size_t, std::string>> sections;  // indent, title
    int line_no = 0;
    size_t start = 0;
    while (start <= text.size()) {
      size_t nl = text.find('\n', start);
      if (nl == std::string_view::npos) nl = text.size();
      std::string_view raw = text.substr(start, nl - start);
      start = nl + 1;
      ++line_no;
      std::string line = trim(raw);
      if (line.empty()) continue;
      size_t indent = indent_of(raw);
      while (!sections.empty() && sections.back().first >= indent) sections.pop_back();
      size_t colon = m_tool == DumpTool::nvidia_smi ? line.find(" : ") : line.find(':');
      if (product_line(line, colon, line_no)) continue;
      std::string label = lower(trim(line.substr(0, colon)));
      std::string value = colon == std::string::npos ? "" : trim(line.substr(colon + (m_tool == DumpTool::nvidia_smi ? 3 : 1)));
      if (colon == std::string::npos || value.empty()) {
        sections.emplace_back(indent, trim(colon == std::string::npos ? line : line.substr(0, colon)));
        continue;
      }
      if (m_product.empty() || !m_gpu) continue;
      if (m_tool == DumpTool::device_query) device_query_counts(label, value, line_no);
      std::string section = sections.empty() ? "" : sections.back().second;
      for (const auto& l : labels(m_tool)) {
        if (label != l.label || (*l.section && lower(section) != l.section)) continue;
        std::string cell = clean_value(value, l);
        std::string shown = (*l.section ? section + " / " : "") + trim(line.substr(0, colon));
        if (!cell.empty()) add(l.metric, shown, cell, line_no);
      }
    }
    return std::move(m_out);
  }

 private:
  std::string m_rel;
  DumpTool m_tool;
  FileIndex m_out;
  std::string m_product;
  int m_product_line = 0;
  bool m_gpu = true;  // rocminfo lists CPU agents too

  // Lines that start a device: `Device 0: "NVIDIA H100 80GB HBM3"`, `Product Name : ...`,
  // `Marketing Name: ...`; rocminfo's `Device Type: CPU` ends the GPU.
  bool product_line(const std::string& line, size_t colon, int line_no) {
    if (colon == std::string::npos) return false;
    std::string key = lower(trim(line.substr(0, colon)));
    std::string value = trim(line.substr(colon + 1));
    if (m_tool == DumpTool::nvidia_smi) value = trim(line.substr(colon + 3));
    bool named = (m_tool == DumpTool::device_query && key.rfind("device ", 0) == 0 && value.size() > 2 &&
                  value.front() == '"' && value.back() == '"') ||
                 (m_tool == DumpTool::nvidia_smi && key == "product name") ||
                 (m_tool == DumpTool::rocminfo && key == "marketing name");
    if (m_tool == DumpTool::rocminfo && key == "device type") {
      m_gpu = lower(value) == "gpu";  // the agent's name came first
      if (m_gpu && !m_product.empty()) declare_product(m_out, m_product, "", m_product_line);
      return true;
    }
    if (!named) return false;
    if (value.front() == '"') value = value.substr(1, value.size() - 2);
    m_product = canonical_product_name(value);
    m_product_line = line_no;
    if (!product_like(m_product)) m_product.clear();  // "AMD EPYC 9654" is a CPU agent's name
    if (m_tool == DumpTool::rocminfo) m_gpu = false;    // until its Device Type says GPU
    else if (!m_product.empty()) declare_product(m_out, m_product, "", line_no);
    return true;
  }

  // "(132) Multiprocessors, (128) CUDA Cores/MP:     16896 CUDA Cores".
  void device_query_counts(const std::string& label, const std::string& value, int line_no) {
    if (label.rfind("(", 0) != 0 || label.find("multiprocessors") == std::string::npos) return;
    size_t close = label.find(')');
    std::string sms = label.substr(1, close == std::string::npos ? 0 : close - 1);
    if (!sms.empty() && sms.find_first_not_of("0123456789") == std::string::npos) {
      add("sm_count", "Multiprocessors", sms, line_no);
    }
    size_t end = value.find_first_not_of("0123456789");
    if (end > 0 && lower(value).find("cuda cores") != std::string::npos) {
      add("cuda_cores", "CUDA Cores", value.substr(0, end), line_no);
    }
  }

  void add(const std::string& metric, const std::string& label, const std::string& cell, int line_no) {
    size_t before = m_out.facts.size();
    add_facts(m_out, FactSite{m_product, m_rel, line_no, false, false}, metric, cell, "", false);
    for (size_t n = before; n < m_out.facts.size(); ++n) m_out.facts[n].label = label;
  }
};

}  // namespace

DumpTool detect_dump(std::string_view text) {
  std::string_view head = text.substr(0, 4096);
  if (head.find("CUDA Device Query") != std::string_view::npos ||
      (head.find("CUDA Capability Major/Minor") != std::string_view::npos &&
       head.find("Device 0: \"") != std::string_view::npos)) {
    return DumpTool::device_query;
  }
  if (head.find("NVSMI LOG") != std::string_view::npos) return DumpTool::nvidia_smi;
  if (head.find("ROCk module") != std::string_view::npos || head.find("HSA System Attributes") != std::string_view::npos ||
      head.find("HSA Agents") != std::string_view::npos) {
    return DumpTool::rocminfo;
  }
  return DumpTool::none;
}

FileIndex parse_dump(const std::string& rel, std::string_view text) {
  DumpTool tool = detect_dump(text);
  if (tool == DumpTool::none) return {};
  return DumpParser(rel, tool).run(text);
}

}  // namespace kgo::wiki
