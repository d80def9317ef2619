#include "gpu-wiki-index/metrics.hpp"
#include "gpu-wiki-index/memo.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>
#include <unordered_map>

#include "core/strings.hpp"

namespace kgo::wiki {

namespace {

struct MetricInfo {
  const char* name;
  const char* label;
  const char* dimension;
};

const std::vector<MetricInfo>& metric_table() {
  static const std::vector<MetricInfo> t = {
      {"hbm_bandwidth", "HBM bandwidth", "bytes_per_s"},
      {"hbm_bandwidth_copy", "HBM bandwidth (copy)", "bytes_per_s"},
      {"hbm_bandwidth_read", "HBM bandwidth (read)", "bytes_per_s"},
      {"hbm_bandwidth_write", "HBM bandwidth (write)", "bytes_per_s"},
      {"hbm_bandwidth_triad", "HBM bandwidth (triad)", "bytes_per_s"},
      {"memory_capacity", "memory capacity", "bytes"},
      {"interconnect_bandwidth", "interconnect (NVLink / Infinity Fabric) bandwidth", "bytes_per_s"},
      {"sm_count", "SM count (CUs on AMD)", "count"},
      {"cuda_cores", "CUDA cores (stream processors on AMD)", "count"},
      {"tensor_cores", "tensor cores (matrix cores on AMD)", "count"},
      {"l2_cache", "L2 cache", "bytes"},
      {"l1_cache", "L1 cache", "bytes"},
      {"infinity_cache", "Infinity Cache (last-level cache)", "bytes"},
      {"boost_clock", "boost clock", "hz"},
      {"base_clock", "base clock", "hz"},
      {"smem_per_sm", "shared memory per SM (LDS per CU)", "bytes"},
      {"registers_per_sm", "registers per SM", "count"},
      {"register_file_per_sm", "register file per SM", "bytes"},
      {"registers_per_thread", "registers per thread", "count"},
      {"threads_per_sm", "threads per SM", "count"},
      {"warps_per_sm", "warps per SM", "count"},
      {"blocks_per_sm", "blocks per SM", "count"},
      {"warp_size", "warp size", "count"},
      {"tdp", "TDP", "watts"},
      {"fp64", "FP64", "flop_per_s"},
      {"fp64_tensor", "FP64 Tensor Core", "flop_per_s"},
      {"fp32", "FP32", "flop_per_s"},
      {"fp32_tensor", "FP32 Tensor Core (matrix)", "flop_per_s"},
      {"fp16", "FP16 (non-tensor)", "flop_per_s"},
      {"bf16", "BF16 (non-tensor)", "flop_per_s"},
      {"tf32_tensor", "TF32 Tensor Core", "flop_per_s"},
      {"bf16_tensor", "BF16 Tensor Core", "flop_per_s"},
      {"fp16_tensor", "FP16 Tensor Core", "flop_per_s"},
      {"fp8_tensor", "FP8 Tensor Core", "flop_per_s"},
      {"int8_tensor", "INT8 Tensor Core", "flop_per_s"},
      {"fp6_tensor", "FP6 Tensor Core", "flop_per_s"},
      {"fp4_tensor", "FP4 Tensor Core", "flop_per_s"},
      {"tf32_tensor_sparse", "TF32 Tensor Core (sparse)", "flop_per_s"},
      {"bf16_tensor_sparse", "BF16 Tensor Core (sparse)", "flop_per_s"},
      {"fp16_tensor_sparse", "FP16 Tensor Core (sparse)", "flop_per_s"},
      {"fp8_tensor_sparse", "FP8 Tensor Core (sparse)", "flop_per_s"},
      {"int8_tensor_sparse", "INT8 Tensor Core (sparse)", "flop_per_s"},
      {"fp6_tensor_sparse", "FP6 Tensor Core (sparse)", "flop_per_s"},
      {"fp4_tensor_sparse", "FP4 Tensor Core (sparse)", "flop_per_s"},
      {"launch_latency", "kernel launch latency", "seconds"},
  };
  return t;
}

const MetricInfo* info(std::string_view metric) {
  static const std::unordered_map<std::string_view, const MetricInfo*> by_name = [] {
    std::unordered_map<std::string_view, const MetricInfo*> m;
    for (const auto& i : metric_table()) m.emplace(i.name, &i);
    return m;
  }();
  auto it = by_name.find(metric);
  return it == by_name.end() ? nullptr : it->second;
}

// Lower-case words of `text`, split on anything but letters and digits.
std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : lower(text)) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      cur += c;
    } else if (!cur.empty()) {
      out.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

struct Words {
  std::vector<std::string> w;
  std::string joined;  // " w1 w2 ... " for phrase search
  bool has(const std::string& word) const {
    return std::find(w.begin(), w.end(), word) != w.end();
  }
  bool any(std::initializer_list<const char*> ws) const {
    for (const char* x : ws) {
      if (has(x)) return true;
    }
    return false;
  }
  bool phrase(const std::string& p) const { return joined.find(" " + p + " ") != std::string::npos; }
  bool prefix(const std::string& p) const {
    for (const auto& x : w) {
      if (x.rfind(p, 0) == 0) return true;
    }
    return false;
  }
};

bool is_accumulate_word(const std::string& w) {
  return w == "accumulate" || w == "accumulator" || w == "accumulation" || w == "accum" || w == "acc";
}

// Words that make a label name something other than the hardware figure its other words name:
// a ridge point is FLOPs per byte, a bank width or tile size is no capacity, an effective or
// achieved (reached, observed) bandwidth is a kernel's result, a total is no per-SM figure (checked in
// other_metric).
bool voided(const Words& t) {
  return t.any({"ridge", "knee", "intensity", "bank", "banks", "width", "tile", "tiles", "tiling", "effective",
                "achieved", "achieves", "achieve", "achievable", "reached", "reaches", "attained", "observed",
                "sustained", "utilization", "efficiency", "speedup", "ratio",
                "occupancy", "granularity", "alignment", "stride", "cycles", "cycle", "clk"}) ||
         t.phrase("per block") || t.phrase("per cta") || t.phrase("per warp") || t.phrase("per wave") ||
         t.phrase("per xcd") || t.phrase("per die") || t.phrase("per gpc") || t.phrase("per tpc") ||
         t.phrase("per simd") || t.phrase("per link") || t.phrase("per stack") ||
         (t.w.size() > 1 && (t.w.back() == "block" || t.w.back() == "wave" || t.w.back() == "xcd"));
}

std::vector<std::string> compute_metrics(const Words& t, const std::string& text_lower) {
  // Precisions in the order written.
  static const std::vector<std::pair<std::string, std::string>> spellings = {
      {"fp64", "fp64"}, {"fp32", "fp32"}, {"tf32", "tf32"}, {"bf16", "bf16"},
      {"bfloat16", "bf16"}, {"fp16", "fp16"}, {"fp8", "fp8"}, {"int8", "int8"},
      {"fp6", "fp6"}, {"fp4", "fp4"}};
  std::vector<std::string> precisions;
  for (size_t i = 0; i < t.w.size(); ++i) {
    // "FP32 Accumulate", "accumulate in FP32": the accumulator's type, not the input precision.
    if (i + 1 < t.w.size() && is_accumulate_word(t.w[i + 1])) continue;
    if (i > 0 && is_accumulate_word(t.w[i - 1])) continue;
    if (i > 1 && t.w[i - 1] == "in" && is_accumulate_word(t.w[i - 2])) continue;
    for (const auto& [sp, p] : spellings) {
      if (t.w[i] == sp && std::find(precisions.begin(), precisions.end(), p) == precisions.end()) {
        precisions.push_back(p);
      }
    }
  }
  if (precisions.empty()) return {};
  bool tensor = t.any({"tensor", "matrix", "mfma", "wgmma", "mma", "xdl", "xdlops"});
  bool vector = t.any({"vector", "simd", "shader", "valu", "vfma", "fma", "vector"}) || t.phrase("cuda core") ||
                t.phrase("cuda cores") || text_lower.find("non-tensor") != std::string::npos;
  bool sparse = t.any({"sparse", "sparsity"});
  bool has_tf32 = std::find(precisions.begin(), precisions.end(), "tf32") != precisions.end();
  std::vector<std::string> out;
  for (const auto& p : precisions) {
    std::string m;
    if (p == "tf32") {
      m = "tf32_tensor";
    } else if (p == "fp64") {
      m = tensor && !vector ? "fp64_tensor" : "fp64";
    } else if (p == "fp32") {
      if (has_tf32) continue;  // "FP32 (Tensor Core / TF32)" is the TF32 path
      m = tensor && !vector ? "fp32_tensor" : "fp32";
    } else if (p == "fp16" || p == "bf16") {
      m = vector ? p : p + "_tensor";
    } else {
      if (vector) return {};
      m = p + "_tensor";
    }
    if (sparse) {
      if (!info(m + "_sparse")) return {};  // a sparse figure of a non-tensor path: not a metric
      m += "_sparse";
    }
    if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
  }
  return out;
}

std::optional<std::string> other_metric(const Words& t) {
  bool per_sm = t.phrase("per sm") || t.phrase("per cu") || t.phrase("per multiprocessor") ||
                t.phrase("per compute unit") ||
                (t.w.size() > 1 && (t.w.back() == "sm" || t.w.back() == "cu"));
  bool per_thread = t.phrase("per thread") || t.phrase("per lane") ||
                    (t.w.size() > 1 && t.w.back() == "thread");
  bool bandwidth = t.any({"bandwidth", "bw"});
  bool reg = t.any({"register", "registers", "regs", "vgpr", "vgprs"});
  bool shared = (t.has("shared") && t.any({"memory", "mem"})) || t.any({"smem", "lds"});

  if (t.phrase("launch latency") || t.phrase("launch overhead")) return "launch_latency";
  if (bandwidth) {
    if (t.any({"l1", "l2", "lds", "shared", "smem", "cache", "register", "registers"})) {
      return std::nullopt;
    }
    if (t.any({"nvlink", "interconnect", "xgmi", "fabric", "pcie"})) return "interconnect_bandwidth";
    for (const char* pat : {"copy", "read", "write", "triad"}) {
      if (t.has(pat)) return std::string("hbm_bandwidth_") + pat;
    }
    return "hbm_bandwidth";
  }
  if (t.any({"block", "blocks", "cta", "ctas"}) && !per_sm) {
    return std::nullopt;  // per-block limits are not per-SM limits
  }
  bool total = t.any({"total", "totals", "totaling", "totalling", "aggregate", "combined", "all", "overall"});
  if (total && (reg || shared || t.has("l1"))) return std::nullopt;  // a chip total, not per SM
  if (reg) {
    if (t.has("file")) return per_thread ? std::nullopt : std::optional<std::string>("register_file_per_sm");
    if (per_thread) return "registers_per_thread";
    if (per_sm) return "registers_per_sm";
    return std::nullopt;
  }
  if (t.has("l1")) return "l1_cache";
  if (t.has("l2")) return "l2_cache";
  if (t.phrase("infinity cache") || t.phrase("last level cache") || t.any({"llc", "mall"})) {
    return "infinity_cache";
  }
  if (shared) return per_thread ? std::nullopt : std::optional<std::string>("smem_per_sm");
  if (per_sm) {
    if (t.any({"thread", "threads"})) return "threads_per_sm";
    if (t.any({"warp", "warps", "wavefront", "wavefronts", "waves"})) return "warps_per_sm";
    if (t.any({"block", "blocks", "cta", "ctas"})) return "blocks_per_sm";
    return std::nullopt;
  }
  if (t.phrase("warp size") || t.phrase("wavefront size") || t.phrase("wave size")) return "warp_size";
  if (t.any({"clock", "frequency", "clocks"})) {
    if (t.any({"memory", "hbm"})) return std::nullopt;
    if (t.has("base")) return "base_clock";
    if (t.any({"boost", "peak", "max", "maximum", "engine", "gpu"})) return "boost_clock";
    return std::nullopt;
  }
  if (t.any({"tdp", "tgp", "tbp"}) || t.phrase("thermal design power") || t.has("power")) {
    return "tdp";
  }
  if (t.phrase("cuda cores") || t.phrase("stream processors") || t.phrase("shader cores") ||
      t.phrase("shading units")) {
    return "cuda_cores";
  }
  if (t.phrase("tensor cores") || t.phrase("matrix cores") || t.phrase("mfma units")) {
    return "tensor_cores";
  }
  if (t.phrase("streaming multiprocessors") || t.phrase("streaming multiprocessor") ||
      t.any({"sms", "cus"}) || t.phrase("sm count") || t.phrase("compute units") ||
      t.phrase("cu count") || (t.w.size() == 1 && (t.has("sm") || t.has("cu")))) {
    return "sm_count";
  }
  if (t.any({"type", "interface", "bus", "controller", "controllers", "stack", "stacks", "clock",
             "technology"})) {
    return std::nullopt;
  }
  if (t.any({"vram", "framebuffer"}) || t.phrase("gpu memory") || t.phrase("memory capacity") ||
      t.phrase("memory size") || t.phrase("hbm capacity") || t.phrase("total memory") ||
      (t.w.size() == 1 && t.has("memory")) || t.prefix("hbm") || t.prefix("gddr")) {
    return "memory_capacity";
  }
  return std::nullopt;
}

}  // namespace

const std::vector<std::string>& canonical_metrics() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& m : metric_table()) v.push_back(m.name);
    return v;
  }();
  return names;
}

bool is_canonical_metric(const std::string& metric) { return info(metric) != nullptr; }

std::string metric_label(const std::string& metric) {
  const MetricInfo* m = info(metric);
  return m ? m->label : metric;
}

std::string metric_dimension(const std::string& metric) {
  const MetricInfo* m = info(metric);
  return m ? m->dimension : "";
}

bool is_sparse_metric(const std::string& metric) {
  return metric.size() > 7 && metric.compare(metric.size() - 7, 7, "_sparse") == 0;
}

namespace {

std::vector<std::string> classify(const std::string& text) {
  std::string l = lower(text);
  // A canonical name written as such ("- hbm_bandwidth_copy: 4.31 TB/s").
  std::string trimmed = l;
  trimmed.erase(0, trimmed.find_first_not_of(" \t*`-"));
  trimmed.erase(trimmed.find_last_not_of(" \t*`:") + 1);
  if (info(trimmed)) return {trimmed};
  Words t;
  t.w = words(text);
  t.joined = " ";
  for (const auto& w : t.w) t.joined += w + " ";
  if (voided(t)) return {};
  auto compute = compute_metrics(t, l);
  if (!compute.empty()) return compute;
  // A precision word that maps to nothing (e.g. a sparse vector rate) names no other metric.
  for (const char* p : {"fp64", "fp32", "tf32", "bf16", "bfloat16", "fp16", "fp8", "int8", "fp6", "fp4"}) {
    if (t.has(p)) return {};
  }
  auto other = other_metric(t);
  if (other) return {*other};
  return {};
}

}  // namespace

std::vector<std::string> metrics_from_text(const std::string& text) {
  return memoized<std::vector<std::string>>(text, [](std::string_view t) { return classify(std::string(t)); });
}

std::optional<std::string> metric_from_text(const std::string& text, const std::string& prefer) {
  auto all = metrics_from_text(text);
  if (all.empty()) return std::nullopt;
  if (!prefer.empty()) {
    for (const auto& m : all) {
      if (m == prefer || m.rfind(prefer + "_", 0) == 0) return m;
    }
  }
  return all.front();
}

}  // namespace kgo::wiki
