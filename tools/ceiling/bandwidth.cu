// HBM bandwidth ceilings: copy, read-only, write-only and triad over arrays many times the L2.
// Each pattern sweeps a few launch shapes (grid-stride and flat, 2 or 4 16-byte vectors in flight
// per thread, plain or streaming cache hints) with short runs, then times the best one.
#include "common.cuh"

namespace {

enum Pattern { kCopy, kRead, kWrite, kTriad };
const char* kNames[] = {"copy", "read", "write", "triad"};
const char* kMetrics[] = {"hbm_bandwidth_copy", "hbm_bandwidth_read", "hbm_bandwidth_write",
                          "hbm_bandwidth_triad"};
const int kArraysTouched[] = {2, 1, 1, 3};  // bytes counted = arrays touched x array bytes

template <bool kStream>
__device__ __forceinline__ float4 load(const float4* p) {
  if constexpr (kStream) return __ldcs(p);
  else return __ldg(p);
}
template <bool kStream>
__device__ __forceinline__ void store(float4* p, float4 v) {
  if constexpr (kStream) __stcs(p, v);
  else *p = v;
}

// Element i of pattern P: reads a/b, writes c. `acc` keeps read-only loads alive.
template <int P, bool kStream>
__device__ __forceinline__ void step(const float4* a, const float4* b, float4* c, size_t i, float& acc) {
  if constexpr (P == kCopy) {
    store<kStream>(c + i, load<kStream>(a + i));
  } else if constexpr (P == kRead) {
    float4 v = load<kStream>(a + i);
    acc += (v.x + v.y) + (v.z + v.w);
  } else if constexpr (P == kWrite) {
    store<kStream>(c + i, make_float4(1.f, 2.f, 3.f, float(i & 7)));
  } else {
    float4 x = load<kStream>(a + i), y = load<kStream>(b + i);
    store<kStream>(c + i, make_float4(x.x + 3.f * y.x, x.y + 3.f * y.y, x.z + 3.f * y.z, x.w + 3.f * y.w));
  }
}

// Grid-stride: each thread keeps U vectors in flight per trip.
template <int P, int U, bool kStream>
__global__ void strided(const float4* __restrict__ a, const float4* __restrict__ b,
                        float4* __restrict__ c, size_t n, float* sink) {
  size_t stride = size_t(gridDim.x) * blockDim.x;
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  float acc = 0.f;
  for (; i + (U - 1) * stride < n; i += U * stride) {
#pragma unroll
    for (int u = 0; u < U; ++u) step<P, kStream>(a, b, c, i + u * stride, acc);
  }
  for (; i < n; i += stride) step<P, kStream>(a, b, c, i, acc);
  if (acc == -1.f) *sink = acc;  // never true for our data; keeps the loads
}

// Flat: one block per blockDim*U vectors, no loop.
template <int P, int U, bool kStream>
__global__ void flat(const float4* __restrict__ a, const float4* __restrict__ b,
                     float4* __restrict__ c, size_t n, float* sink) {
  size_t base = size_t(blockIdx.x) * blockDim.x * U + threadIdx.x;
  float acc = 0.f;
#pragma unroll
  for (int u = 0; u < U; ++u) {
    size_t i = base + size_t(u) * blockDim.x;
    if (i < n) step<P, kStream>(a, b, c, i, acc);
  }
  if (acc == -1.f) *sink = acc;
}

__global__ void fill(float4* p, size_t n, float seed) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    float f = float((i * 2654435761u) & 1023) / 1024.f + seed;
    p[i] = make_float4(f, f + 1.f, f + 2.f, f + 3.f);
  }
}

using Kernel = void (*)(const float4*, const float4*, float4*, size_t, float*);

struct Config {
  Kernel kernel;
  bool flat;
  int threads, blocks_per_sm, unroll;
  bool stream;
  std::string describe() const {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s, %d threads%s, %d x 16 B per thread in flight, %s hints",
                  flat ? "flat grid" : "grid-stride", threads,
                  flat ? "" : (", " + std::to_string(blocks_per_sm) + " blocks/SM").c_str(), unroll,
                  stream ? "streaming (.cs)" : "default");
    return buf;
  }
};

template <int P>
std::vector<Config> configs() {
  std::vector<Config> v;
  const int shapes[][2] = {{256, 8}, {512, 4}, {1024, 2}};
  for (auto& s : shapes) {
    v.push_back({strided<P, 2, false>, false, s[0], s[1], 2, false});
    v.push_back({strided<P, 4, false>, false, s[0], s[1], 4, false});
    v.push_back({strided<P, 2, true>, false, s[0], s[1], 2, true});
    v.push_back({strided<P, 4, true>, false, s[0], s[1], 4, true});
  }
  for (int t : {256, 512}) {
    v.push_back({flat<P, 2, false>, true, t, 0, 2, false});
    v.push_back({flat<P, 4, false>, true, t, 0, 4, false});
    v.push_back({flat<P, 2, true>, true, t, 0, 2, true});
    v.push_back({flat<P, 4, true>, true, t, 0, 4, true});
  }
  return v;
}

void run_pattern(int p, const std::vector<Config>& cs, float4* a, float4* b, float4* c, size_t n,
                 float* sink, const Options& o, const cudaDeviceProp& prop) {
  auto launcher = [&](const Config& cfg) {
    size_t blocks = cfg.flat ? (n + size_t(cfg.threads) * cfg.unroll - 1) / (size_t(cfg.threads) * cfg.unroll)
                             : size_t(prop.multiProcessorCount) * cfg.blocks_per_sm;
    return [=] {
      cfg.kernel<<<unsigned(blocks), cfg.threads>>>(a, b, c, n, sink);
      CEIL_CHECK_LAUNCH();
    };
  };
  size_t best = 0;
  double best_ms = 1e30;
  for (size_t k = 0; k < cs.size(); ++k) {  // short sweep to pick the launch shape
    Timing t = time_events(launcher(cs[k]), 1, 3);
    if (t.median_ms < best_ms) {
      best_ms = t.median_ms;
      best = k;
    }
  }
  Timing t = time_events(launcher(cs[best]), o.warmup, o.repeats);
  double bytes = double(kArraysTouched[p]) * double(n) * 16.0;
  char note[512];
  std::snprintf(note, sizeof note, "%s; %s bytes counted (%d x %.2f GiB); median of %d; %s",
                kNames[p], p == kCopy ? "read+write" : p == kTriad ? "2 reads + 1 write" : p == kRead ? "read" : "write",
                kArraysTouched[p], double(n) * 16.0 / double(1 << 30), o.repeats, cs[best].describe().c_str());
  char extra[256];
  std::snprintf(extra, sizeof extra,
                "\"pattern\":\"%s\",\"bytes_per_run\":%.0f,\"array_bytes\":%.0f,\"best_TBps\":%.6g,\"configs_swept\":%zu",
                kNames[p], bytes, double(n) * 16.0, bytes / (t.min_ms * 1e-3) / 1e12, cs.size());
  print_result(kMetrics[p], bytes / (t.median_ms * 1e-3), "bytes_per_s", t, note, extra);
}

}  // namespace

void run_bandwidth(const Options& o, const cudaDeviceProp& prop) {
  bool any = false;
  for (const char* name : kNames) any = any || o.wants(name);
  if (!any) return;
  size_t n = o.bytes / 16;
  float4 *a = nullptr, *b = nullptr, *c = nullptr;
  float* sink = nullptr;
  CEIL_CHECK(cudaMalloc(&a, n * 16));
  CEIL_CHECK(cudaMalloc(&b, n * 16));
  CEIL_CHECK(cudaMalloc(&c, n * 16));
  CEIL_CHECK(cudaMalloc(&sink, sizeof(float)));
  unsigned fill_blocks = unsigned(prop.multiProcessorCount) * 8;
  fill<<<fill_blocks, 256>>>(a, n, 0.25f);
  fill<<<fill_blocks, 256>>>(b, n, 0.5f);
  fill<<<fill_blocks, 256>>>(c, n, 0.75f);
  CEIL_CHECK_LAUNCH();
  CEIL_CHECK(cudaDeviceSynchronize());
  if (o.wants("copy")) run_pattern(kCopy, configs<kCopy>(), a, b, c, n, sink, o, prop);
  if (o.wants("read")) run_pattern(kRead, configs<kRead>(), a, b, c, n, sink, o, prop);
  if (o.wants("write")) run_pattern(kWrite, configs<kWrite>(), a, b, c, n, sink, o, prop);
  if (o.wants("triad")) run_pattern(kTriad, configs<kTriad>(), a, b, c, n, sink, o, prop);
  if (o.wants("copy")) {  // the copy engine path torch.Tensor.copy_ uses, for comparison only
    Timing t = time_events([&] { CEIL_CHECK(cudaMemcpyAsync(c, a, n * 16, cudaMemcpyDeviceToDevice)); },
                           o.warmup, o.repeats);
    print_result("info_memcpy_d2d", 2.0 * double(n) * 16.0 / (t.median_ms * 1e-3), "bytes_per_s", t,
                 "cudaMemcpyAsync device-to-device; read+write bytes counted; reference only", "");
  }
  CEIL_CHECK(cudaFree(a));
  CEIL_CHECK(cudaFree(b));
  CEIL_CHECK(cudaFree(c));
  CEIL_CHECK(cudaFree(sink));
}
