// The steps of `kgo ops` shared by its files, and its benchmark phase: time every correct variant
// and torch once per op (timings of unchanged kernels are reused from logs/ops_state.json), then
// pick the fastest correct variant.
#include <iostream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/workspace.hpp"
#include "harness/fields.hpp"
#include "harness/ops_steps.hpp"
#include "harness/utilization.hpp"

namespace kgo::harness {

namespace fs = std::filesystem;
using nlohmann::json;

json& variant_state(json& state, const std::string& op, const std::string& v) {
  json& ops = state["ops"];
  if (!ops.contains(op)) ops[op] = {{"variants", json::object()}, {"torch", nullptr}};
  json& vs = ops[op]["variants"];
  if (!vs.contains(v)) vs[v] = {{"attempts", json::array()}, {"bench", nullptr}};
  return vs[v];
}

std::string sizes_key(const std::vector<std::vector<long long>>& sizes, int runs) {
  return shapes_text(sizes) + fmt::format(" x{}", runs);
}

std::optional<double> mean_of(const std::vector<std::optional<double>>& v) {
  double sum = 0;
  for (const auto& x : v) {
    if (!x) return std::nullopt;
    sum += *x;
  }
  return v.empty() ? std::nullopt : std::optional<double>(sum / v.size());
}

std::vector<std::optional<double>> per_size(const json& sizes_json, const std::vector<std::vector<long long>>& sizes,
                                            const char* key) {
  std::vector<std::optional<double>> out;
  for (const auto& s : sizes) {
    std::optional<double> v;
    for (const auto& row : sizes_json) {
      if (row.value("shape", json::array()) == json(s)) v = jnum(row, key);
    }
    out.push_back(v);
  }
  return out;
}

Target variant_target(const OpsOptions& o, const PythonInterpreter& py, const std::string& device,
                      const std::string& op, const std::string& entry, const fs::path& file, const fs::path& ref) {
  Target t;
  t.kernel = file;
  t.reference = ref;
  t.contract = "op";
  t.op = op;
  t.entry = entry;
  t.dtype = o.target.dtype.value_or("fp32");
  t.torch_dtype = torch_dtype_name(t.dtype);
  t.device = device;
  t.args = parse_args(o.target.args);
  for (const auto& s : o.target.shapes) t.shapes.push_back(core::parse_shape(s));
  t.python = py;
  return t;
}

void ops_progress(const std::string& line) { std::cerr << "kgo ops: " << line << std::endl; }

void bench_op(OpOutcome& out, json& state, const OpsOptions& o, const PythonInterpreter& py, const fs::path& ref,
              const std::function<void()>& save_state) {
  const std::string device = "cuda";
  const std::vector<std::vector<long long>>& sizes = out.sizes;
  std::string key = sizes_key(sizes, o.bench.runs);
  json& torch_state = state["ops"][out.op]["torch"];
  bool need_torch = !torch_state.is_object() || jstr(torch_state, "sizes_key") != key;
  for (auto& vo : out.variants) {
    if (vo.status != "PASS") continue;
    json& vs = variant_state(state, out.op, vo.name);
    std::string sha = core::sha256_file(vo.file);
    const json& b = vs["bench"];
    bool fresh = b.is_object() && jstr(b, "kernel_sha256") == sha && jstr(b, "sizes_key") == key;
    if (!fresh || need_torch) {
      ops_progress(fmt::format("{}/{}: benchmarking {} size(s) x {} runs", out.op, vo.name, sizes.size(), o.bench.runs));
      Target t = variant_target(o, py, device, out.op, out.entry, vo.file, ref);
      t.shapes = sizes;
      BenchSettings bs = o.bench;
      bs.eager = need_torch && o.bench.eager;
      bs.compile = need_torch && o.bench.compile;
      BenchReport br = run_bench(t, bs, catalog_work(out.op, t.dtype, sizes));
      if (!br.passed()) {
        vo.status = "BENCH_FAIL";
        vo.message = br.verdict + ": " + br.message;
        vs["bench"] = nullptr;
        continue;
      }
      json sizes_json = jobj(br.result, "sizes");
      vs["bench"] = {{"kernel_sha256", sha}, {"sizes_key", key}, {"sizes", sizes_json}, {"at", core::utc_now_iso()}};
      if (need_torch) {
        torch_state = {{"sizes_key", key}, {"sizes", sizes_json}};
        need_torch = false;
      }
      if (out.gpu.empty()) out.gpu = jstr(jobj(br.result, "environment"), "gpu");
      save_state();
    }
    vo.median_us = per_size(jobj(vs["bench"], "sizes"), sizes, "median_us");
    vo.final_us = mean_of(vo.median_us);
  }
  if (torch_state.is_object()) {
    out.eager_us = per_size(jobj(torch_state, "sizes"), sizes, "eager_us");
    out.compile_us = per_size(jobj(torch_state, "sizes"), sizes, "compile_us");
    out.eager_final_us = mean_of(out.eager_us);
    out.compile_final_us = mean_of(out.compile_us);
  }
  // Phase 4: the fastest correct variant.
  std::optional<double> best_us;
  for (const auto& vo : out.variants) {
    if (vo.status == "PASS" && vo.final_us && (!best_us || *vo.final_us < *best_us)) {
      best_us = vo.final_us;
      out.best = vo.name;
    }
  }
  if (!out.best) out.note = "no correct variant could be timed";
}

}  // namespace kgo::harness
