#pragma once
// What nvidia-smi says about the GPUs: name, compute capability, driver, CUDA version the driver
// supports, current and maximum clocks, and the active clock-event (throttle) reasons.
// Recorded by `kgo env` and beside every `kgo bench` run; below harness, profiling and sweep, which all
// probe the GPU through it.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kgo::core {

struct GpuInfo {
  int index = 0;
  std::string name;
  std::string compute_cap;                 // "9.0"
  std::string driver_version;
  std::optional<double> sm_clock_mhz, mem_clock_mhz, max_sm_clock_mhz, max_mem_clock_mhz;
  std::optional<double> temperature_c, power_w;
  std::vector<std::string> clock_events;   // active throttle reasons, e.g. "sw_power_cap"
  std::string uuid;                        // "GPU-..." (empty where the line has no such column)
};

struct SmiReport {
  bool available = false;      // nvidia-smi ran and listed at least one GPU
  std::string error;           // why not, when !available
  std::string cuda_version;    // the driver's CUDA version ("CUDA Version: 13.0")
  std::vector<GpuInfo> gpus;
};

// Runs nvidia-smi (never throws; absence is reported in `error`).
SmiReport query_nvidia_smi();

// Whether a CUDA GPU is visible to this process, read from the driver's entries under `proc_gpus`
// (no process started: nvidia-smi costs tens of milliseconds). CUDA_VISIBLE_DEVICES set to "" or
// "-1" hides them all; without the folder, nvidia-smi decides.
bool nvidia_gpu_visible(const std::filesystem::path& proc_gpus = "/proc/driver/nvidia/gpus");

// Parses one `--format=csv,noheader,nounits` line of the fields kgo asks for (exposed for tests).
std::optional<GpuInfo> parse_smi_line(const std::string& line);

nlohmann::json to_json(const GpuInfo& g);
nlohmann::json to_json(const SmiReport& s);

// "1980 MHz SM / 3201 MHz mem (max 1980 / 3201), no clock events" for reports.
std::string clocks_text(const GpuInfo& g);

}  // namespace kgo::core
