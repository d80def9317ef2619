// In-process timing of the roofline engine on every catalog op x 20 shapes, beside the 50 ms
// target: the arithmetic and rendering alone, and the whole run_roofline (registry
// load, README + roofline.json written atomically, git commit). The whole-process figure is
// bench/roofline_bench.py's. Usage: kgo_roofline_bench <workspace with registered specs> [runs]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/workspace.hpp"
#include "roofline/cases.hpp"
#include "roofline/render.hpp"
#include "roofline/run.hpp"
#include "specs/registry.hpp"

namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::string> shapes_for(const std::string& op) {
  std::vector<std::string> out;
  for (int i = 1; i <= 20; ++i) {
    long long s = 64LL * i;
    if (op == "matmul") out.push_back(std::to_string(s) + "x" + std::to_string(2 * s) + "x" + std::to_string(s / 2));
    else if (op == "bmm") out.push_back("8x" + std::to_string(s) + "x" + std::to_string(s) + "x" + std::to_string(s / 2));
    else if (op == "attention") out.push_back("4x16x" + std::to_string(8 * s) + "x128");
    else out.push_back(std::to_string(16 * s) + "x" + std::to_string(s));
  }
  return out;
}

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <workspace with registered specs> [runs]\n", argv[0]);
    return 3;
  }
  std::filesystem::path ws = argv[1];
  int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 9;
  const double target_ms = 50;
  try {
    kgo::core::WorkspaceConfig cfg = kgo::core::load_config(ws);
    std::printf("roofline engine in-process, 20 shapes per op, median of %d runs; target %.0f ms per op\n", runs,
                target_ms);
    std::printf("%-14s %18s %22s %14s\n", "op", "arithmetic+render", "run_roofline (writes)", "worst/target");
    double worst_all = 0;
    for (const kgo::roofline::OpInfo& op : kgo::roofline::ops()) {
      std::vector<std::string> shapes = shapes_for(op.name);
      std::vector<double> pure, whole;
      for (int r = 0; r < runs; ++r) {
        auto t0 = Clock::now();
        kgo::roofline::CaseRequest req;
        req.op = op.name;
        for (const auto& s : shapes) req.shapes.push_back(kgo::core::parse_shape(s));
        req.dtype = cfg.dtype;
        auto set = kgo::roofline::build_cases(req);
        auto reg = kgo::specs::load_registry(ws);
        auto in = kgo::roofline::select_inputs(reg, set.compute_metric, false);
        auto a = kgo::roofline::analyze(set.op, set.dtype, set.matmul_like, set.cases, in, 0.9, std::nullopt, {});
        std::string text = kgo::roofline::roofline_section(a) + kgo::roofline::stop_conditions_section(a) +
                           kgo::roofline::isa_section(cfg.arch, a) + kgo::roofline::to_json(a).dump(2);
        pure.push_back(ms_since(t0));
        kgo::roofline::RooflineOptions o;
        o.op = op.name;
        o.shapes = shapes;
        o.fraction = r % 2 ? 0.89 : 0.9;  // so that every call really rewrites and commits
        t0 = Clock::now();
        kgo::roofline::run_roofline(ws, o);
        whole.push_back(ms_since(t0));
      }
      double worst = std::max(*std::max_element(pure.begin(), pure.end()), *std::max_element(whole.begin(), whole.end()));
      worst_all = std::max(worst_all, worst);
      std::printf("%-14s %15.3f ms %19.3f ms %13.3fx\n", op.name.c_str(), median(pure), median(whole),
                  worst / target_ms);
    }
    std::printf("worst single call: %.3f ms = %.3f x the %.0f ms target\n", worst_all, worst_all / target_ms,
                target_ms);
  } catch (const kgo::Error& e) {
    std::fprintf(stderr, "kgo_roofline_bench: %s\n", e.what());
    return e.exit_code();
  }
  return 0;
}
