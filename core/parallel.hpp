#pragma once
// parallel_for(n, work): work(0..n-1) on up to min(hardware threads, 8) threads, fewer when n is small;
// the first exception a task throws is rethrown once every task has finished.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace kgo::core {

template <class Work>
void parallel_for(size_t n, Work&& work, size_t min_per_thread = 32) {
  size_t threads = std::min<size_t>({std::max(1u, std::thread::hardware_concurrency()), 8, n / min_per_thread + 1});
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto run = [&] {
    for (size_t k = next++; k < n; k = next++) {
      try {
        work(k);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(run);
  run();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace kgo::core
