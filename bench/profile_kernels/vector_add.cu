// c = a + b for the CUDA contract (`extern "C" void solve(...)`): 16-byte loads and stores per thread, a
// scalar tail; used to exercise kgo asm / kgo profile on a kernel.cu workspace.
#include <cuda_runtime.h>

__global__ void add_vec4(const float4* __restrict__ a, const float4* __restrict__ b, float4* __restrict__ c,
                         int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 x = a[i], y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}

__global__ void add_tail(const float* a, const float* b, float* c, int start, int n) {
  int i = start + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

extern "C" void solve(const float* a, const float* b, float* c, int n) {
  int n4 = n / 4;
  if (n4 > 0) {
    add_vec4<<<(n4 + 255) / 256, 256>>>(reinterpret_cast<const float4*>(a), reinterpret_cast<const float4*>(b),
                                        reinterpret_cast<float4*>(c), n4);
  }
  if (n % 4) add_tail<<<1, 32>>>(a, b, c, n4 * 4, n);
}
