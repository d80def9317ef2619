#include "core/gpu_info.hpp"

#include <cstdlib>
#include <future>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/process.hpp"
#include "core/strings.hpp"

namespace kgo::core {

namespace {

// Field order of the query; the last field's name changed across drivers (throttle -> event).
const char* k_fields =
    "index,name,compute_cap,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,"
    "temperature.gpu,power.draw,";

// NVML's clock-event reason bits (nvmlClocksEventReason*), as nvidia-smi prints the mask.
const std::pair<unsigned long long, const char*> k_reasons[] = {
    {0x1, "gpu_idle"},          {0x2, "applications_clocks_setting"},
    {0x4, "sw_power_cap"},      {0x8, "hw_slowdown"},
    {0x10, "sync_boost"},       {0x20, "sw_thermal_slowdown"},
    {0x40, "hw_thermal_slowdown"}, {0x80, "hw_power_brake_slowdown"},
    {0x100, "display_clock_setting"}};

std::optional<double> number(const std::string& s) {
  try {
    size_t used = 0;
    double v = std::stod(s, &used);
    return used > 0 ? std::optional<double>(v) : std::nullopt;
  } catch (...) {
    return std::nullopt;
  }
}

core::ProcessResult smi(const std::vector<std::string>& args) {
  core::ProcessOptions o;
  o.timeout = std::chrono::seconds(30);
  std::vector<std::string> argv = {"nvidia-smi"};
  argv.insert(argv.end(), args.begin(), args.end());
  return core::run_process(argv, o);
}

}  // namespace

std::optional<GpuInfo> parse_smi_line(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream ss(line);
  for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(trim(cell));
  if (cells.size() < 11) return std::nullopt;
  GpuInfo g;
  auto idx = number(cells[0]);
  if (!idx) return std::nullopt;
  g.index = static_cast<int>(*idx);
  g.name = cells[1];
  g.compute_cap = cells[2];
  g.driver_version = cells[3];
  g.sm_clock_mhz = number(cells[4]);
  g.mem_clock_mhz = number(cells[5]);
  g.max_sm_clock_mhz = number(cells[6]);
  g.max_mem_clock_mhz = number(cells[7]);
  g.temperature_c = number(cells[8]);
  g.power_w = number(cells[9]);
  try {
    unsigned long long mask = std::stoull(cells[10], nullptr, 0);
    for (const auto& [bit, name] : k_reasons) {
      if (mask & bit) g.clock_events.push_back(name);
    }
  } catch (...) {
    // "[N/A]" or "[Not Supported]": no reasons known.
  }
  if (cells.size() > 11 && cells[11].rfind("GPU-", 0) == 0) g.uuid = cells[11];
  return g;
}

bool nvidia_gpu_visible(const std::filesystem::path& proc_gpus) {
  if (const char* cvd = std::getenv("CUDA_VISIBLE_DEVICES")) {
    std::string v = trim(cvd);
    if (v.empty() || v == "-1") return false;
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(proc_gpus, ec)) return query_nvidia_smi().available;
  return std::filesystem::directory_iterator(proc_gpus, ec) != std::filesystem::directory_iterator();
}

SmiReport query_nvidia_smi() {
  SmiReport r;
  if (!core::find_in_path("nvidia-smi")) {
    r.error = "nvidia-smi not found in PATH (no NVIDIA driver on this machine)";
    return r;
  }
  // `--version` names the driver's CUDA version without the full table's per-GPU and per-process queries, which
  // cost a sweep job most of a second on a four-GPU host; it runs beside the query (each is a tenth of a second of
  // a sweep job's provenance). Drivers whose `--version` lacks it get the table.
  auto version = std::async(std::launch::async, [] { return smi({"--version"}); });
  core::ProcessResult p;
  for (const char* reason_field : {"clocks_event_reasons.active", "clocks_throttle_reasons.active"}) {
    p = smi({std::string("--query-gpu=") + k_fields + reason_field + ",uuid", "--format=csv,noheader,nounits"});
    if (p.ok()) break;
  }
  if (!p.ok()) {
    r.error = "nvidia-smi failed: " + trim(p.out + " " + p.err);
    return r;
  }
  std::stringstream ss(p.out);
  for (std::string line; std::getline(ss, line);) {
    if (auto g = parse_smi_line(line)) r.gpus.push_back(*g);
  }
  if (r.gpus.empty()) {
    r.error = "nvidia-smi listed no GPU";
    return r;
  }
  r.available = true;
  static const std::regex cuda_re(R"(CUDA Version\s*:\s*([0-9.]+))");
  std::smatch m;
  std::string head = version.get().out;
  if (!std::regex_search(head, m, cuda_re)) {
    head = smi({}).out;
    if (!std::regex_search(head, m, cuda_re)) return r;
  }
  r.cuda_version = m[1];
  return r;
}

nlohmann::json to_json(const GpuInfo& g) {
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  return {{"index", g.index},
          {"name", g.name},
          {"compute_cap", g.compute_cap},
          {"driver_version", g.driver_version},
          {"sm_clock_mhz", opt(g.sm_clock_mhz)},
          {"mem_clock_mhz", opt(g.mem_clock_mhz)},
          {"max_sm_clock_mhz", opt(g.max_sm_clock_mhz)},
          {"max_mem_clock_mhz", opt(g.max_mem_clock_mhz)},
          {"temperature_c", opt(g.temperature_c)},
          {"power_w", opt(g.power_w)},
          {"clock_events", g.clock_events}};
}

nlohmann::json to_json(const SmiReport& s) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : s.gpus) gpus.push_back(to_json(g));
  return {{"available", s.available},
          {"error", s.error},
          {"cuda_version", s.cuda_version},
          {"gpus", gpus}};
}

std::string clocks_text(const GpuInfo& g) {
  auto mhz = [](const std::optional<double>& v) { return v ? fmt::format("{:.0f}", *v) : std::string("?"); };
  std::string events;
  for (const auto& e : g.clock_events) events += (events.empty() ? "" : ", ") + e;
  return fmt::format("{} MHz SM / {} MHz mem (max {} / {}), clock events: {}", mhz(g.sm_clock_mhz),
                     mhz(g.mem_clock_mhz), mhz(g.max_sm_clock_mhz), mhz(g.max_mem_clock_mhz),
                     events.empty() ? "none" : events);
}

}  // namespace kgo::core
