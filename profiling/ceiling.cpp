#include "profiling/ceiling.hpp"

#include <algorithm>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <thread>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/process.hpp"
#include "core/resources.hpp"
#include "core/tools.hpp"
#include "gpu-wiki-index/platform.hpp"
#include "core/gpu_info.hpp"

namespace kgo::profiling {

namespace fs = std::filesystem;

namespace {

std::string today_utc() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

fs::path cache_root() {
  if (const char* v = std::getenv("KGO_CACHE_DIR"); v && *v) return v;
  if (const char* v = std::getenv("XDG_CACHE_HOME"); v && *v) return fs::path(v) / "kgo";
  if (const char* v = std::getenv("HOME"); v && *v) return fs::path(v) / ".cache" / "kgo";
  return fs::temp_directory_path() / "kgo-cache";
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Samples nvidia-smi about once a second on a thread until stopped.
class ClockSampler {
 public:
  ClockSampler() : m_thread([this] { loop(); }) {}
  ~ClockSampler() { stop(); }
  ClockSummary stop() {
    m_stop = true;
    if (m_thread.joinable()) m_thread.join();
    ClockSummary s;
    s.samples = static_cast<int>(m_infos.size());
    std::vector<double> sm, mem;
    for (const auto& g : m_infos) {
      if (g.sm_clock_mhz) sm.push_back(*g.sm_clock_mhz);
      if (g.mem_clock_mhz) mem.push_back(*g.mem_clock_mhz);
      if (g.power_w) s.power_w_max = std::max(s.power_w_max.value_or(0), *g.power_w);
      for (const auto& e : g.clock_events) {
        if (std::find(s.clock_events.begin(), s.clock_events.end(), e) == s.clock_events.end()) {
          s.clock_events.push_back(e);
        }
      }
      s.driver_version = g.driver_version;
      s.gpu_name = g.name;
    }
    if (!sm.empty()) {
      s.sm_mhz_min = *std::min_element(sm.begin(), sm.end());
      s.sm_mhz_max = *std::max_element(sm.begin(), sm.end());
      s.sm_mhz_median = median(sm);
    }
    if (!mem.empty()) s.mem_mhz_median = median(mem);
    return s;
  }

 private:
  void loop() {
    while (!m_stop) {
      core::SmiReport r = core::query_nvidia_smi();
      if (r.available && !r.gpus.empty()) m_infos.push_back(r.gpus[0]);
      for (int i = 0; i < 10 && !m_stop; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  std::atomic<bool> m_stop{false};
  std::vector<core::GpuInfo> m_infos;
  std::thread m_thread;
};

std::string resolve_product(const CeilingOptions& o, const std::string& gpu_name, const fs::path& wiki) {
  wiki::WikiLocation loc{wiki, false, "--record"};
  if (o.platform) return wiki::resolve_platform(*o.platform, loc).canonical;
  std::string name = gpu_name;
  for (const char* prefix : {"NVIDIA ", "AMD Instinct ", "AMD "}) {
    if (name.rfind(prefix, 0) == 0) name = name.substr(std::string(prefix).size());
  }
  // "H100 80GB HBM3" -> try the whole name, then drop words from the end.
  std::string candidate = name;
  while (!candidate.empty()) {
    try {
      return wiki::resolve_platform(candidate, loc).canonical;
    } catch (const Error&) {
    }
    size_t sp = candidate.rfind(' ');
    if (sp == std::string::npos) break;
    candidate = candidate.substr(0, sp);
  }
  throw Error("the wiki at " + wiki.string() + " names no product for GPU '" + gpu_name +
                  "'; pass --platform with the product name the wiki uses",
              ExitCode::unknown_platform);
}

std::string method_text(const CeilingResult& r, const CeilingOptions& o) {
  return fmt::format(
      "Measured with `kgo ceiling` (kgo {}) on one {}: CUDA micro-benchmarks built with nvcc for this GPU, "
      "timed with CUDA events after warm-up, each figure the median of the repeats. Bandwidth counts the "
      "bytes each pattern reads plus the bytes it writes, over arrays many times the L2, best launch shape "
      "of a short sweep; hbm_bandwidth is the best pattern. FP32 is an FMA loop counting two FLOP per FMA; "
      "tensor figures are cuBLAS GEMMs on random data; launch latency is the per-kernel time of empty kernels "
      "replayed from a CUDA graph, the floor of a small kernel timed the way kgo bench times small kernels. "
      "Clocks were left as found. Conditions:\n\n```text\n{}```\n",
      core::kgo_version(), r.device.value("name", std::string("GPU")), [&] {
        std::string s;
        s += fmt::format("gpu: {} (cc {}, {} SMs, L2 {} bytes, bus {} bits)\n", r.device.value("name", ""),
                         r.device.value("cc", ""), r.device.value("sms", 0), r.device.value("l2_bytes", 0),
                         r.device.value("bus_width_bits", 0));
        s += fmt::format("driver: {}; CUDA driver API {}, runtime {}\n", r.clocks.driver_version,
                         r.device.value("cuda_driver", 0), r.device.value("cuda_runtime", 0));
        auto mhz = [](std::optional<double> v) { return v ? fmt::format("{:.0f}", *v) : std::string("n/a"); };
        s += fmt::format("sm clock MHz during the run: min {} median {} max {} ({} nvidia-smi samples)\n",
                         mhz(r.clocks.sm_mhz_min), mhz(r.clocks.sm_mhz_median), mhz(r.clocks.sm_mhz_max),
                         r.clocks.samples);
        s += fmt::format("memory clock MHz median {}; power max W {}; clock events: {}\n",
                         mhz(r.clocks.mem_mhz_median), mhz(r.clocks.power_w_max),
                         r.clocks.clock_events.empty() ? "none" : fmt::format("{}", fmt::join(r.clocks.clock_events, ", ")));
        s += fmt::format("arrays: {} bytes each; repeats {}; warm-up {}; GEMM sizes {}\n", o.bytes, o.repeats,
                         o.warmup, o.gemm_sizes);
        return s;
      }());
}

}  // namespace

fs::path ensure_ceiling_binary(const std::string& compute_cap, bool* built, double* seconds) {
  *built = false;
  *seconds = 0;
  fs::path src = core::data_dir() / "tools" / "ceiling";
  std::vector<fs::path> sources;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(src, ec)) {
    std::string ext = e.path().extension().string();
    if (ext == ".cu" || ext == ".cuh") sources.push_back(e.path());
  }
  if (sources.empty()) {
    throw Error("no CUDA sources under " + src.string() + "; reinstall kgo", ExitCode::failure);
  }
  std::sort(sources.begin(), sources.end());
  auto nvcc = core::find_tool("nvcc");
  if (!nvcc) {
    throw Error("nvcc (CUDA toolkit) not found in " + core::tool_search_text() +
                    ": kgo ceiling compiles its benchmarks with it; install the CUDA toolkit or pass --binary "
                    "with a built kgo_ceiling",
                ExitCode::no_gpu);
  }
  std::string sm;
  for (char c : compute_cap) {
    if (std::isdigit(static_cast<unsigned char>(c))) sm += c;
  }
  if (sm.empty()) sm = "90";
  auto version = core::run_process({nvcc->string(), "--version"});
  std::string key_text = version.out + "|sm_" + sm;
  for (const auto& s : sources) key_text += "|" + s.filename().string() + ":" + core::sha256_file(s);
  std::string key = core::sha256_hex(key_text).substr(0, 16);
  fs::path dir = cache_root() / "ceiling" / key;
  fs::path bin = dir / "kgo_ceiling";
  if (fs::exists(bin)) return bin;
  fs::create_directories(dir, ec);
  if (ec) throw Error("cannot create " + dir.string() + ": " + ec.message(), ExitCode::not_writable);
  fs::path tmp = dir / ("kgo_ceiling.tmp" + std::to_string(::getpid()));
  std::vector<std::string> argv = {nvcc->string(), "-O3", "-std=c++17",
                                   "-gencode", "arch=compute_" + sm + ",code=sm_" + sm, "-o", tmp.string()};
  for (const auto& s : sources) {
    if (s.extension() == ".cu") argv.push_back(s.string());
  }
  argv.push_back("-lcublas");
  core::ProcessOptions po;
  po.timeout = std::chrono::minutes(10);
  auto r = core::run_process(argv, po);
  *seconds = r.seconds;
  if (!r.ok()) {
    fs::remove(tmp, ec);
    throw Error("building the ceiling benchmarks with nvcc failed:\n" + r.err.substr(0, 3000), ExitCode::failure);
  }
  fs::rename(tmp, bin);
  *built = true;
  return bin;
}

CeilingResult run_ceiling(const CeilingOptions& o) {
  core::SmiReport smi = core::query_nvidia_smi();
  if (!smi.available || smi.gpus.empty()) {
    throw Error("no NVIDIA GPU found (nvidia-smi: " + (smi.error.empty() ? "no GPU listed" : smi.error) +
                    "); kgo ceiling measures a CUDA GPU: run it on the GPU machine",
                ExitCode::no_gpu);
  }
  if (o.bytes < (1ull << 20) || o.repeats < 1 || o.warmup < 0) {
    throw Error("--bytes must be at least 1 MiB, --repeats at least 1, --warmup non-negative", ExitCode::usage);
  }
  if (o.record_wiki && !fs::is_directory(*o.record_wiki)) {
    throw Error("--record " + o.record_wiki->string() + " is not a directory; give the wiki's root folder",
                ExitCode::wiki_error);
  }
  bool built = false;
  double build_s = 0;
  fs::path bin = o.binary ? *o.binary : ensure_ceiling_binary(smi.gpus[0].compute_cap, &built, &build_s);
  std::vector<std::string> argv = {bin.string(), "--bytes", std::to_string(o.bytes), "--repeats",
                                   std::to_string(o.repeats), "--warmup", std::to_string(o.warmup),
                                   "--gemm-sizes", o.gemm_sizes};
  if (!o.only.empty()) {
    argv.push_back("--only");
    argv.push_back(o.only);
  }
  core::ProcessOptions po;
  po.timeout = std::chrono::seconds(o.timeout_s);
  ClockSampler sampler;
  auto pr = core::run_process(argv, po);
  ClockSummary clocks = sampler.stop();
  if (pr.timed_out) {
    throw Error(fmt::format("kgo_ceiling ran past {} s and was stopped; lower --bytes/--repeats or raise "
                            "--timeout", o.timeout_s), ExitCode::failure);
  }
  if (!pr.ok()) {
    throw Error(fmt::format("kgo_ceiling failed (exit {}{}):\n{}", pr.exit_code,
                            pr.signaled ? fmt::format(", signal {}", pr.signal) : "", pr.err.substr(0, 3000)),
                pr.exit_code == 4 ? ExitCode::no_gpu : ExitCode::failure);
  }
  CeilingResult r = parse_ceiling_output(pr.out);
  r.clocks = clocks;
  if (r.clocks.driver_version.empty()) r.clocks.driver_version = smi.gpus[0].driver_version;
  r.binary = bin.string();
  r.built = built;
  r.build_seconds = build_s;
  r.run_seconds = pr.seconds;
  r.date = today_utc();
  r.method = method_text(r, o);
  if (o.record_wiki) {
    wiki::WikiLocation loc{fs::canonical(*o.record_wiki), false, "--record"};
    r.product = resolve_product(o, r.device.value("name", smi.gpus[0].name), loc.root);
    MeasuredDoc doc{*r.product, r.date, r.method, r.figures};
    fs::path path = measured_doc_path(*o.record_wiki, *r.product, r.date);
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec) throw Error("cannot create " + path.parent_path().string() + ": " + ec.message(), ExitCode::not_writable);
    core::write_file_atomic(path, render_measured_doc(doc));
    r.recorded = path;
    r.wiki = wiki::identify_wiki(loc);
  }
  return r;
}

}  // namespace kgo::profiling
