// Launch latency: an empty kernel between two CUDA events (the floor any small kernel pays),
// plus the back-to-back launch interval and the host-side launch + synchronize time.
#include <chrono>

#include "common.cuh"

namespace {
__global__ void empty_kernel() {}
}  // namespace

void run_launch(const Options& o, const cudaDeviceProp&) {
  if (!o.wants("launch")) return;
  const int repeats = 1000;
  Timing t = time_events([] {
    empty_kernel<<<1, 32>>>();
    CEIL_CHECK_LAUNCH();
  }, 50, repeats);
  print_result("launch_latency", t.median_ms * 1e-3, "seconds", t,
               "empty kernel between two CUDA events, median of 1000", "");

  const int burst = 1000;
  Timing b = time_events([] {
    for (int i = 0; i < burst; ++i) empty_kernel<<<1, 32>>>();
    CEIL_CHECK_LAUNCH();
  }, 2, 10);
  Timing per = b;
  per.median_ms /= burst;
  per.min_ms /= burst;
  per.max_ms /= burst;
  print_result("info_launch_interval", per.median_ms * 1e-3, "seconds", per,
               "1000 back-to-back empty launches between two events, per launch, median of 10", "");

  std::vector<double> us;
  for (int i = 0; i < repeats; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    empty_kernel<<<1, 32>>>();
    CEIL_CHECK(cudaStreamSynchronize(0));
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(us.begin(), us.end());
  Timing h;
  h.repeats = repeats;
  h.median_ms = us[us.size() / 2] * 1e-3;
  h.min_ms = us.front() * 1e-3;
  h.max_ms = us.back() * 1e-3;
  print_result("info_launch_sync_host", h.median_ms * 1e-3, "seconds", h,
               "host clock around launch + cudaStreamSynchronize, median of 1000", "");
}
