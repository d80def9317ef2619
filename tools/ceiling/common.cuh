// Shared helpers of the ceiling micro-benchmarks: error checks, event timing (warm-up, then the
// median of repeats) and the JSON lines every benchmark prints.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CEIL_CHECK(call)                                                                   \
  do {                                                                                     \
    cudaError_t err_ = (call);                                                             \
    if (err_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "kgo_ceiling: %s failed at %s:%d: %s\n", #call, __FILE__,      \
                   __LINE__, cudaGetErrorString(err_));                                    \
      std::exit(3);                                                                        \
    }                                                                                      \
  } while (0)

#define CEIL_CHECK_LAUNCH() CEIL_CHECK(cudaGetLastError())

struct Options {
  size_t bytes = size_t(4) << 30;  // per array
  int repeats = 20;
  int warmup = 3;
  std::vector<int> gemm_sizes{4096, 8192, 16384};
  std::string only;                 // comma list of benchmark names; empty: all
  bool wants(const char* name) const {
    if (only.empty()) return true;
    std::string list = "," + only + ",";
    return list.find("," + std::string(name) + ",") != std::string::npos;
  }
};

struct Timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int repeats = 0;
};

// Times `launch` (which enqueues work on the default stream) with CUDA events: `warmup`
// untimed runs, then `repeats` runs each between two events; returns median/min/max.
template <class F>
Timing time_events(F launch, int warmup, int repeats) {
  for (int i = 0; i < warmup; ++i) launch();
  CEIL_CHECK(cudaDeviceSynchronize());
  cudaEvent_t a, b;
  CEIL_CHECK(cudaEventCreate(&a));
  CEIL_CHECK(cudaEventCreate(&b));
  std::vector<double> ms;
  for (int i = 0; i < repeats; ++i) {
    CEIL_CHECK(cudaEventRecord(a));
    launch();
    CEIL_CHECK(cudaEventRecord(b));
    CEIL_CHECK(cudaEventSynchronize(b));
    float t = 0;
    CEIL_CHECK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  CEIL_CHECK(cudaEventDestroy(a));
  CEIL_CHECK(cudaEventDestroy(b));
  std::sort(ms.begin(), ms.end());
  Timing r;
  r.repeats = repeats;
  r.min_ms = ms.front();
  r.max_ms = ms.back();
  r.median_ms = ms.size() % 2 ? ms[ms.size() / 2] : (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2;
  return r;
}

// One result line: {"metric":..., "value":..., "unit":..., ...}. `extra` is a JSON fragment
// (without braces) appended to the object.
inline void print_result(const char* metric, double value, const char* unit, const Timing& t,
                         const std::string& note, const std::string& extra) {
  std::printf("{\"metric\":\"%s\",\"value\":%.6g,\"unit\":\"%s\",\"median_ms\":%.6g,\"min_ms\":%.6g,"
              "\"max_ms\":%.6g,\"repeats\":%d,\"note\":\"%s\"%s%s}\n",
              metric, value, unit, t.median_ms, t.min_ms, t.max_ms, t.repeats, note.c_str(),
              extra.empty() ? "" : ",", extra.c_str());
  std::fflush(stdout);
}

void run_bandwidth(const Options& o, const cudaDeviceProp& prop);
void run_fma(const Options& o, const cudaDeviceProp& prop);
void run_tensor(const Options& o, const cudaDeviceProp& prop);
void run_launch(const Options& o, const cudaDeviceProp& prop);
