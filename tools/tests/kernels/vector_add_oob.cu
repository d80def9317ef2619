// CUDA-contract fixture: writes far out of bounds (an illegal address: verdict CRASH).
#include <cuda_runtime.h>

__global__ void bad_kernel(const float* in0, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i + (1 << 30)] = in0[i];
}

extern "C" void solve(const float* in0, float* out, int n) {
  bad_kernel<<<(n + 255) / 256, 256>>>(in0, out, n);
  cudaDeviceSynchronize();
}
