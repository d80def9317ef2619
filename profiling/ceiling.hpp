#pragma once
// `kgo ceiling`: builds the CUDA micro-benchmarks of tools/ceiling/ with nvcc at first use (cached by
// content hash under the user cache dir), runs them, and turns their JSON lines into canonical
// measured figures; optionally writes them into a wiki as a measured document.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpu-wiki-index/wiki_location.hpp"
#include "profiling/measured_doc.hpp"

namespace kgo::profiling {

struct CeilingOptions {
  std::optional<std::filesystem::path> binary;  // a prebuilt kgo_ceiling (skips nvcc)
  unsigned long long bytes = 4ull << 30;         // per array
  int repeats = 20;
  int warmup = 3;
  std::string only;                              // comma list: copy,read,write,triad,fma,bf16,fp16,launch
  std::string gemm_sizes = "4096,8192,16384";
  int timeout_s = 900;
  std::optional<std::filesystem::path> record_wiki;  // --record WIKI_DIR
  std::optional<std::string> platform;               // --platform (else from the GPU's name)
};

struct CeilingLine {  // one {"metric": ...} line of kgo_ceiling's output
  std::string metric;
  double value = 0;
  std::string unit;  // bytes_per_s, flop_per_s, seconds
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int repeats = 0;
  std::string note;
  nlohmann::json raw;
};

struct ClockSummary {  // nvidia-smi samples taken while the benchmarks ran
  int samples = 0;
  std::optional<double> sm_mhz_min, sm_mhz_median, sm_mhz_max, mem_mhz_median, power_w_max;
  std::vector<std::string> clock_events;
  std::string driver_version;
  std::string gpu_name;
};

struct CeilingResult {
  nlohmann::json device;              // kgo_ceiling's {"device": ...} line
  std::vector<CeilingLine> lines;     // every metric line, in order
  std::vector<MeasuredFigure> figures;  // canonical figures, with hbm_bandwidth = best pattern
  ClockSummary clocks;
  std::string binary;
  bool built = false;                 // nvcc ran this time
  double build_seconds = 0, run_seconds = 0;
  std::string date;                   // YYYY-MM-DD (UTC)
  std::string method;                 // the measured document's method paragraph
  std::optional<std::string> product; // canonical product (when recording)
  std::optional<std::filesystem::path> recorded;  // the document written
  std::optional<wiki::WikiIdentity> wiki;         // the wiki --record read and wrote into, after the write
};

// Parses kgo_ceiling's stdout (JSON lines; other lines ignored). Throws Error(failure) when it
// has no device line.
CeilingResult parse_ceiling_output(std::string_view text);

// Canonical figures from the metric lines: the four bandwidth patterns, hbm_bandwidth (the best
// of them), fp32, bf16_tensor, fp16_tensor, launch_latency. Notes carry no parentheses.
std::vector<MeasuredFigure> canonical_figures(const std::vector<CeilingLine>& lines, const nlohmann::json& device);

// The cached binary for these sources and this GPU, building it with nvcc when absent.
// Throws Error(no_gpu) when nvcc is missing.
std::filesystem::path ensure_ceiling_binary(const std::string& compute_cap, bool* built, double* seconds);

// The whole command. Throws Error(no_gpu) without an NVIDIA GPU / nvidia-smi.
CeilingResult run_ceiling(const CeilingOptions& opts);

nlohmann::json to_json(const CeilingResult& r);
std::string render_text(const CeilingResult& r);

}  // namespace kgo::profiling
