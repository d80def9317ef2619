// BF16 / FP16 tensor-core peak through cuBLAS (cublasGemmEx, FP32 accumulation) on random data,
// square N^3 products; the best N is reported, every N is printed.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "common.cuh"

#define CUBLAS_CHECK(call)                                                                  \
  do {                                                                                      \
    cublasStatus_t st_ = (call);                                                            \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                                     \
      std::fprintf(stderr, "kgo_ceiling: %s failed at %s:%d: status %d\n", #call, __FILE__, \
                   __LINE__, int(st_));                                                     \
      std::exit(3);                                                                         \
    }                                                                                       \
  } while (0)

namespace {

// Uniform values in [-1, 1) from a hash of the index: random-looking, never all zeros.
template <class T>
__global__ void random_fill(T* p, size_t n, unsigned seed) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    p[i] = T(float(h & 0xffff) / 32768.f - 1.f);
  }
}

template <class T>
void run_dtype(const char* metric, const char* label, cudaDataType_t type, const Options& o,
               const cudaDeviceProp& prop) {
  cublasHandle_t h;
  CUBLAS_CHECK(cublasCreate(&h));
  void* workspace = nullptr;
  const size_t workspace_bytes = size_t(32) << 20;
  CEIL_CHECK(cudaMalloc(&workspace, workspace_bytes));
  CUBLAS_CHECK(cublasSetWorkspace(h, workspace, workspace_bytes));
  double best = 0;
  Timing best_t;
  int best_n = 0;
  for (int n : o.gemm_sizes) {
    size_t elems = size_t(n) * n;
    T *a, *b, *c;
    CEIL_CHECK(cudaMalloc(&a, elems * sizeof(T)));
    CEIL_CHECK(cudaMalloc(&b, elems * sizeof(T)));
    CEIL_CHECK(cudaMalloc(&c, elems * sizeof(T)));
    random_fill<<<prop.multiProcessorCount * 8, 256>>>(a, elems, 17u);
    random_fill<<<prop.multiProcessorCount * 8, 256>>>(b, elems, 91u);
    CEIL_CHECK_LAUNCH();
    const float alpha = 1.f, beta = 0.f;
    auto gemm = [&] {
      CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a, type, n, b, type, n,
                                &beta, c, type, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    };
    Timing t = time_events(gemm, o.warmup * 3, o.repeats);
    double flops = 2.0 * double(n) * n * n;
    double rate = flops / (t.median_ms * 1e-3);
    char note[200], extra[64];
    std::snprintf(note, sizeof note, "cuBLAS cublasGemmEx %s %d^3, FP32 accumulate, random data, median of %d",
                  label, n, o.repeats);
    std::snprintf(extra, sizeof extra, "\"n\":%d", n);
    print_result((std::string("info_") + metric + "_n").c_str(), rate, "flop_per_s", t, note, extra);
    if (rate > best) {
      best = rate;
      best_t = t;
      best_n = n;
    }
    CEIL_CHECK(cudaFree(a));
    CEIL_CHECK(cudaFree(b));
    CEIL_CHECK(cudaFree(c));
  }
  char note[200], extra[64];
  std::snprintf(note, sizeof note, "cuBLAS %d^3 (best of %zu sizes), FP32 accumulate, random data, median of %d",
                best_n, o.gemm_sizes.size(), o.repeats);
  std::snprintf(extra, sizeof extra, "\"n\":%d", best_n);
  if (best_n) print_result(metric, best, "flop_per_s", best_t, note, extra);
  CEIL_CHECK(cudaFree(workspace));
  CUBLAS_CHECK(cublasDestroy(h));
}

}  // namespace

void run_tensor(const Options& o, const cudaDeviceProp& prop) {
  if (o.wants("bf16")) run_dtype<__nv_bfloat16>("bf16_tensor", "bf16", CUDA_R_16BF, o, prop);
  if (o.wants("fp16")) run_dtype<__half>("fp16_tensor", "fp16", CUDA_R_16F, o, prop);
}
