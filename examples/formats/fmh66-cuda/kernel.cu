// Layout of fmh66/kernel-opt-agent's CUDA demos: extern "C" solve() with no pointer marked const; ref.py's
// setup() says which buffers are outputs and holds the non-shape settings (eps). kgo's own kernel: RMS norm.
#include <cuda_runtime.h>

__global__ void rms_rows(float* x, float* w, float* y, int rows, int cols, float eps) {
  int r = blockIdx.x;
  if (r >= rows) return;
  __shared__ float part[256];
  float acc = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) acc += x[r * cols + c] * x[r * cols + c];
  part[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  float inv = rsqrtf(part[0] / cols + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[r * cols + c] = x[r * cols + c] * inv * w[c];
}

extern "C" void solve(float* x, float* w, float* y, int rows, int cols, float eps) {
  rms_rows<<<rows, 256>>>(x, w, y, rows, cols, eps);
  cudaDeviceSynchronize();
}
