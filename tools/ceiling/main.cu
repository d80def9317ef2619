// kgo_ceiling: measures this GPU's achievable maxima and prints one JSON object per line:
// first {"device": ...}, then {"metric": ..., "value": ..., "unit": ...} per figure.
// Usage: kgo_ceiling [--bytes N] [--repeats R] [--warmup W] [--only a,b] [--gemm-sizes 4096,8192]
// Benchmarks: copy read write triad fma bf16 fp16 launch.
#include <cstring>
#include <string>

#include "common.cuh"

namespace {

std::vector<int> parse_sizes(const char* text) {
  std::vector<int> v;
  std::string s = text;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    std::string item = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (!item.empty()) v.push_back(std::atoi(item.c_str()));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return v;
}

int usage(const char* why) {
  std::fprintf(stderr, "kgo_ceiling: %s\nusage: kgo_ceiling [--bytes N] [--repeats R] [--warmup W] "
               "[--only copy,read,write,triad,fma,bf16,fp16,launch] [--gemm-sizes 4096,8192]\n", why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) return usage(("missing value after " + a).c_str());
    const char* v = argv[++i];
    if (a == "--bytes") o.bytes = std::strtoull(v, nullptr, 10);
    else if (a == "--repeats") o.repeats = std::atoi(v);
    else if (a == "--warmup") o.warmup = std::atoi(v);
    else if (a == "--only") o.only = v;
    else if (a == "--gemm-sizes") o.gemm_sizes = parse_sizes(v);
    else return usage(("unknown option " + a).c_str());
  }
  if (o.bytes < (size_t(1) << 20) || o.repeats < 1 || o.warmup < 0) return usage("bad option value");
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::fprintf(stderr, "kgo_ceiling: no CUDA device visible\n");
    return 4;
  }
  cudaDeviceProp prop;
  CEIL_CHECK(cudaGetDeviceProperties(&prop, 0));
  int runtime = 0, driver = 0, bus = 0;
  CEIL_CHECK(cudaRuntimeGetVersion(&runtime));
  CEIL_CHECK(cudaDriverGetVersion(&driver));
  CEIL_CHECK(cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, 0));
  std::printf("{\"device\":{\"name\":\"%s\",\"cc\":\"%d.%d\",\"sms\":%d,\"l2_bytes\":%d,\"memory_bytes\":%zu,"
              "\"bus_width_bits\":%d},\"cuda_runtime\":%d,\"cuda_driver\":%d,\"array_bytes\":%zu,"
              "\"repeats\":%d,\"warmup\":%d}\n",
              prop.name, prop.major, prop.minor, prop.multiProcessorCount, prop.l2CacheSize,
              prop.totalGlobalMem, bus, runtime, driver, o.bytes, o.repeats, o.warmup);
  std::fflush(stdout);
  run_launch(o, prop);
  run_bandwidth(o, prop);
  run_fma(o, prop);
  run_tensor(o, prop);
  return 0;
}
