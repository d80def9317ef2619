#include "harness/bench_workspace.hpp"

#include <iostream>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/txn.hpp"
#include "core/workspace.hpp"
#include "harness/record.hpp"
#include "harness/utilization.hpp"

namespace kgo::harness {

void check_bench_workspace_settings(const BenchSettings& s) {
  check_bench_settings(s);
  if (s.graph != "auto" && s.graph != "on" && s.graph != "off") {
    throw Error("--graph must be auto, on or off", ExitCode::usage);
  }
  if (s.size_timeout_s <= 0 || s.total_timeout_s <= 0) {
    throw Error("--size-timeout and --timeout must be positive numbers of seconds", ExitCode::usage);
  }
}

BenchReport bench_workspace(const std::filesystem::path& ws, const BenchWorkspaceOptions& o) {
  check_bench_workspace_settings(o.settings);
  core::WorkspaceConfig cfg = core::load_config(ws);
  Target target = verdict_target(ws, cfg, o.target);
  if (o.target.shapes.empty()) {
    target.shapes = default_sizes(cfg.shapes);
    target.shapes_given = false;
  }
  if (target.device == "cpu" && o.target.device == "auto") {
    throw Error("kgo bench times kernels on a GPU and none is visible (the NVIDIA driver lists none, or "
                "CUDA_VISIBLE_DEVICES hides them); run it on a GPU "
                "machine, or pass --device cpu to exercise the path with the Triton interpreter (those times "
                "are not recorded)",
                ExitCode::no_gpu);
  }
  const BenchSettings& s = o.settings;
  if (s.progress) {
    std::cerr << "kgo bench: timing " << target.shapes.size() << " size(s) x " << s.runs << " runs"
              << (s.eager || s.compile ? " plus the PyTorch baselines" : "") << " on " << target.device
              << "; this can take a few minutes\n";
  }
  BenchReport r = run_workspace_bench(ws, target, s);
  r.utilization = utilization_for(ws, r);
  {
    core::LockedWorkspace lock(ws);
    r.report_path = ws / "benchmark.md";
    core::write_file_atomic(r.report_path, render_benchmark_md(r, cfg.name + " (" + cfg.platform + ")"));
  }
  if (!o.record) r.record_note = "not recorded (--no-record)";
  else record_bench(ws, r);
  return r;
}

}  // namespace kgo::harness
