// Launch latency: the per-kernel time of empty kernels replayed from a CUDA graph (the floor a small
// kernel timed the way kgo bench times small kernels can reach), plus, for reference, one empty launch
// between two events, back-to-back stream launches, and host launch + synchronize.
#include <chrono>

#include "common.cuh"

namespace {
__global__ void empty_kernel() {}
constexpr int kGraphBatch = 20;  // kernels per graph replay, as the harness's graph mode batches calls
}  // namespace

void run_launch(const Options& o, const cudaDeviceProp&) {
  if (!o.wants("launch")) return;
  cudaStream_t s;
  CEIL_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CEIL_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < kGraphBatch; ++i) empty_kernel<<<1, 32, 0, s>>>();
  CEIL_CHECK(cudaStreamEndCapture(s, &graph));
  CEIL_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int i = 0; i < 20; ++i) CEIL_CHECK(cudaGraphLaunch(exec, s));
  CEIL_CHECK(cudaStreamSynchronize(s));
  cudaEvent_t a, b;
  CEIL_CHECK(cudaEventCreate(&a));
  CEIL_CHECK(cudaEventCreate(&b));
  std::vector<double> per;
  const int samples = 200;
  for (int i = 0; i < samples; ++i) {
    CEIL_CHECK(cudaEventRecord(a, s));
    CEIL_CHECK(cudaGraphLaunch(exec, s));
    CEIL_CHECK(cudaEventRecord(b, s));
    CEIL_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CEIL_CHECK(cudaEventElapsedTime(&ms, a, b));
    per.push_back(ms / kGraphBatch);
  }
  std::sort(per.begin(), per.end());
  Timing g;
  g.repeats = samples;
  g.median_ms = per[per.size() / 2];
  g.min_ms = per.front();
  g.max_ms = per.back();
  print_result("launch_latency", g.median_ms * 1e-3, "seconds", g,
               "empty kernel in a CUDA graph of 20, per kernel, median of 200 replays timed with events", "");
  CEIL_CHECK(cudaGraphExecDestroy(exec));
  CEIL_CHECK(cudaGraphDestroy(graph));
  CEIL_CHECK(cudaEventDestroy(a));
  CEIL_CHECK(cudaEventDestroy(b));
  CEIL_CHECK(cudaStreamDestroy(s));

  Timing t = time_events([] {
    empty_kernel<<<1, 32>>>();
    CEIL_CHECK_LAUNCH();
  }, 50, 1000);
  print_result("info_launch_events", t.median_ms * 1e-3, "seconds", t,
               "one empty kernel between two CUDA events, median of 1000", "");

  const int burst = 1000;
  Timing bt = time_events([] {
    for (int i = 0; i < burst; ++i) empty_kernel<<<1, 32>>>();
    CEIL_CHECK_LAUNCH();
  }, 2, 10);
  bt.median_ms /= burst;
  bt.min_ms /= burst;
  bt.max_ms /= burst;
  print_result("info_launch_interval", bt.median_ms * 1e-3, "seconds", bt,
               "1000 back-to-back empty stream launches between two events, per launch, median of 10", "");

  std::vector<double> us;
  for (int i = 0; i < 1000; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    empty_kernel<<<1, 32>>>();
    CEIL_CHECK(cudaStreamSynchronize(0));
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(us.begin(), us.end());
  Timing h;
  h.repeats = 1000;
  h.median_ms = us[us.size() / 2] * 1e-3;
  h.min_ms = us.front() * 1e-3;
  h.max_ms = us.back() * 1e-3;
  print_result("info_launch_sync_host", h.median_ms * 1e-3, "seconds", h,
               "host clock around launch + cudaStreamSynchronize, median of 1000", "");
}
