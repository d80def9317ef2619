// FP32 (non-tensor) peak: independent FMA chains per thread, enough warps to fill every SM.
#include "common.cuh"

namespace {

constexpr int kChains = 8;   // independent accumulators per thread
constexpr int kUnroll = 16;  // FMAs per chain per loop trip

__global__ void fma_chains(float* out, int iters, float mul, float add) {
  float x[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) x[c] = float(threadIdx.x + c) * 1e-3f;
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
      for (int c = 0; c < kChains; ++c) x[c] = fmaf(x[c], mul, add);
    }
  }
  float s = 0.f;
#pragma unroll
  for (int c = 0; c < kChains; ++c) s += x[c];
  out[size_t(blockIdx.x) * blockDim.x + threadIdx.x] = s;
}

}  // namespace

void run_fma(const Options& o, const cudaDeviceProp& prop) {
  if (!o.wants("fma")) return;
  const int threads = 512;
  const int blocks = prop.multiProcessorCount * (prop.maxThreadsPerMultiProcessor / threads);
  const int iters = 8192;
  float* out = nullptr;
  CEIL_CHECK(cudaMalloc(&out, size_t(blocks) * threads * sizeof(float)));
  Timing t = time_events([&] {
    fma_chains<<<blocks, threads>>>(out, iters, 0.999999f, 1e-6f);
    CEIL_CHECK_LAUNCH();
  }, o.warmup, o.repeats);
  double flops = 2.0 * double(blocks) * threads * double(iters) * kUnroll * kChains;
  char note[256];
  std::snprintf(note, sizeof note,
                "FFMA loop, %d independent chains per thread, %d blocks x %d threads, 2 FLOP per FMA, median of %d",
                kChains, blocks, threads, o.repeats);
  print_result("fp32", flops / (t.median_ms * 1e-3), "flop_per_s", t, note, "");
  CEIL_CHECK(cudaFree(out));
}
