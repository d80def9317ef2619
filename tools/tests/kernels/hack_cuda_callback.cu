// Delegation attack (CUDA contract): solve() adds its inputs in its own kernel, and its host code also calls back
// into the Python interpreter that loaded it (the C API found with dlsym) to run torch work. Work torch does from a
// solve() must show to the delegation check as aten ops.
#include <cuda_runtime.h>
#include <dlfcn.h>

__global__ void add_kernel(const float* in0, const float* in1, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in0[i] + in1[i];
}

typedef int (*gil_ensure_fn)();
typedef void (*gil_release_fn)(int);
typedef int (*run_fn)(const char*);

static void call_torch() {
  gil_ensure_fn ensure = (gil_ensure_fn)dlsym(RTLD_DEFAULT, "PyGILState_Ensure");
  gil_release_fn release = (gil_release_fn)dlsym(RTLD_DEFAULT, "PyGILState_Release");
  run_fn run = (run_fn)dlsym(RTLD_DEFAULT, "PyRun_SimpleString");
  if (!ensure || !release || !run) return;
  int state = ensure();
  run("import torch\ntorch.ones(1 << 20, device='cuda').exp_().sum()\n");
  release(state);
}

extern "C" void solve(const float* in0, const float* in1, float* out, int n) {
  add_kernel<<<(n + 255) / 256, 256>>>(in0, in1, out, n);
  call_torch();
  cudaDeviceSynchronize();
}
