#include "profiling/profile.hpp"

#include <chrono>
#include <regex>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/memory.hpp"
#include "core/strings.hpp"
#include "core/tools.hpp"
#include "core/txn.hpp"
#include "core/workspace.hpp"
#include "harness/client.hpp"
#include "core/gpu_info.hpp"
#include "profiling/ncu_csv.hpp"
#include "profiling/ncu_metrics.hpp"
#include "profiling/ncu_passes.hpp"
#include "profiling/runner.hpp"

namespace kgo::profiling {

namespace fs = std::filesystem;

namespace {

std::string shell_join(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    bool plain = !a.empty() && a.find_first_of(" \t'\"$\\*?()[]{}<>|;&") == std::string::npos;
    s += (s.empty() ? "" : " ") + (plain ? a : "'" + std::regex_replace(a, std::regex("'"), "'\\''") + "'");
  }
  return s;
}

// Timing-only evidence when the counters are closed: one harness bench of the same shape.
nlohmann::json timing_only(const harness::Target& t, const std::vector<long long>& shape, const ProfileOptions& o) {
  harness::HarnessCall call;
  call.command = "bench";
  call.request = harness::target_request(t);
  call.request["shapes"] = nlohmann::json::array({shape});
  call.request["bench"] = {{"runs", 10}, {"baselines", nlohmann::json::array()}};
  call.request["total_timeout_s"] = o.timeout_s;
  call.python = t.python;
  harness::HarnessOutcome out;
  try {
    out = harness::run_harness(call);
  } catch (const Error& e) {  // evidence is best effort here: say why there is none
    return {{"tool", "kgo bench (harness, CUDA events)"}, {"verdict", "ERROR"}, {"message", e.what()}};
  }
  nlohmann::json j = {{"tool", "kgo bench (harness, CUDA events)"}, {"verdict", out.verdict}};
  if (out.result.contains("sizes") && out.result["sizes"].is_array() && !out.result["sizes"].empty()) {
    const auto& s = out.result["sizes"][0];
    for (const char* k : {"median_us", "iqr_us", "achieved_tbps", "achieved_tflops", "mode", "runs"}) {
      if (s.contains(k)) j[k] = s[k];
    }
  } else {
    j["message"] = out.result.value("message", std::string("no timing"));
  }
  return j;
}


}  // namespace

std::optional<size_t> choose_launch(const std::vector<LaunchInfo>& launches, const std::vector<std::string>& preferred) {
  auto best_of = [&](auto pred) -> std::optional<size_t> {
    std::optional<size_t> best;
    for (size_t i = 0; i < launches.size(); ++i) {
      if (!pred(launches[i])) continue;
      if (!best || launches[i].duration_ns.value_or(0) > launches[*best].duration_ns.value_or(0)) best = i;
    }
    return best;
  };
  if (!preferred.empty()) {
    auto hit = best_of([&](const LaunchInfo& l) {
      for (const auto& p : preferred) {
        if (l.kernel.find(p) != std::string::npos) return true;
      }
      return false;
    });
    if (hit) return hit;
  }
  return best_of([](const LaunchInfo&) { return true; });
}

namespace {

// --set and the verdict thresholds (--thresholds FILE, then each --threshold NAME=VALUE).
void read_settings(const ProfileOptions& o, ProfileResult& r) {
  r.set = o.set;
  if (o.set != "basic" && o.set != "detailed" && o.set != "full") {
    throw Error("--set must be basic, detailed or full, not '" + o.set + "'", ExitCode::usage);
  }
  if (o.thresholds_file) {
    auto j = nlohmann::json::parse(core::read_file(*o.thresholds_file), nullptr, false);
    if (j.is_discarded()) throw Error(o.thresholds_file->string() + " is not JSON", ExitCode::usage);
    r.thresholds = thresholds_from_json(j, r.thresholds);
  }
  for (const auto& a : o.thresholds) set_threshold(r.thresholds, a);
}

// ncu (--ncu, else core::find_tool) and its version; throws no_gpu without a GPU or without ncu.
void locate_ncu(const ProfileOptions& o, const core::SmiReport& smi, ProfileResult& r) {
  auto ncu = o.ncu ? std::optional<fs::path>(*o.ncu) : core::find_tool("ncu");
  if (!smi.available) {
    throw Error("no NVIDIA GPU found (nvidia-smi: " + (smi.error.empty() ? "no GPU listed" : smi.error) +
                    "); kgo profile runs Nsight Compute on a GPU: run it on the GPU machine" +
                    (ncu ? "" : " (ncu is missing too)"),
                ExitCode::no_gpu);
  }
  if (!ncu || !fs::exists(*ncu)) {
    throw Error("Nsight Compute (ncu) not found in " + core::tool_search_text() +
                    "; install Nsight Compute or pass --ncu PATH",
                ExitCode::no_gpu);
  }
  r.ncu_path = ncu->string();
  auto ver = core::run_process({r.ncu_path, "--version"});
  std::smatch m;
  if (std::regex_search(ver.out, m, std::regex(R"(Version\s+(\S+))"))) r.ncu_version = m[1].str();
}

std::string rel_path(const ProfileResult& r, const std::string& name) {
  return (fs::path("profiles") / core::version_name(r.version) / name).string();
}

// No counters: the timing-only evidence, its verdict and ncu_summary.md saying why.
void write_timing_only(const NcuPlan& plan, const Pass& p, ProfileResult& r) {
  r.timing = timing_only(plan.target, plan.shape, plan.o);
  r.verdict = timing_only_verdict(r, core::shape_to_string(plan.shape));
  core::write_file_atomic(r.dir / "ncu_summary.md", render_timing_only_md(r));
  core::write_file_atomic(r.dir / "ncu_log.txt", p.log + "\n----- stderr -----\n" + tail(p.run.process.err, 20000));
  r.files = {rel_path(r, "ncu_summary.md"), rel_path(r, "ncu_log.txt"), rel_path(r, "run_once_request.json")};
}

// Counters: the chosen launch's numbers, its verdict and the raw CSV, summary and details files.
void write_counters(const Pass& p, const core::SmiReport& smi, ProfileResult& r) {
  if (p.report.launches.empty()) {
    fail_for_harness(p);
    throw Error("ncu profiled no kernel (" + r.selection + "); check --kernel-regex / --launch-skip. ncu said:\n" +
                    tail(p.log + p.run.process.err),
                ExitCode::failure);
  }
  r.launches = launch_infos(p.report);
  auto idx = choose_launch(r.launches, harness_launches(p.run));
  const NcuLaunch& launch = p.report.launches[*idx];
  r.chosen = r.launches[*idx];
  r.numbers = extract_numbers(launch);
  r.verdict = classify(r.numbers, r.thresholds);
  ProfileHeader h;
  h.kernel = launch.kernel;
  h.gpu = smi.gpus.empty() ? "" : smi.gpus[0].name;
  h.clock_control = "none (SM clocks not locked by ncu)";
  h.ncu_version = r.ncu_version;
  h.command = shell_join(p.argv);
  h.set = r.set;
  core::write_file_atomic(r.dir / "ncu_raw.csv", p.log);
  core::write_file_atomic(r.dir / "ncu_summary.md", render_summary(h, launch, render_verdict_md(r)));
  core::write_file_atomic(r.dir / "ncu_details.md", render_details(h, launch));
  r.files = {rel_path(r, "ncu_raw.csv"), rel_path(r, "ncu_summary.md"), rel_path(r, "ncu_details.md"),
             rel_path(r, "run_once_request.json")};
}

}  // namespace

ProfileResult run_profile(const fs::path& ws, const ProfileOptions& o) {
  auto t0 = std::chrono::steady_clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  ProfileResult r;
  r.workspace = ws;
  read_settings(o, r);
  core::WorkspaceConfig cfg = core::load_config(ws);
  r.version = choose_version(ws, o.version);
  r.dir = ws / "profiles" / core::version_name(r.version);
  core::SmiReport smi = core::query_nvidia_smi();
  locate_ncu(o, smi, r);

  harness::Target target = harness::workspace_target(ws, cfg, o.target);
  if (target.device != "cuda") {
    throw Error("kgo profile needs the kernel on a CUDA device (--device " + target.device + ")", ExitCode::no_gpu);
  }
  ScratchDir scratch{core::make_temp_dir(fs::temp_directory_path(), "kgo-profile-")};
  std::error_code ec;
  fs::create_directories(r.dir, ec);
  if (ec) throw Error("cannot create " + r.dir.string() + ": " + ec.message(), ExitCode::not_writable);
  NcuPlan plan{target, first_shape(target), scratch.dir, r.dir, o,
               {r.ncu_path, "--csv", "--page", "raw", "--clock-control", "none", "--target-processes", "all"}, {}};
  plan.full = plan.base;
  plan.full.insert(plan.full.end(), {"--set", o.set, "--metrics", join(requested_metrics(), ",")});
  Pass p = profile_passes(plan, r);
  r.command = p.argv;
  r.ncu_seconds = p.run.process.seconds;
  r.chosen.reset();

  core::LockedWorkspace lock(ws);
  fs::create_directories(r.dir, ec);
  if (ec) throw Error("cannot create " + r.dir.string() + ": " + ec.message(), ExitCode::not_writable);
  if (r.counters) write_counters(p, smi, r);
  else write_timing_only(plan, p, r);
  r.total_seconds = seconds();
  core::write_file_atomic(r.dir / "profile.json", to_json(r).dump(2) + "\n");
  r.files.push_back(rel_path(r, "profile.json"));
  r.record_note = update_record_field(ws, r.version, "profile_evidence", profile_evidence(r));
  r.total_seconds = seconds();
  return r;
}

}  // namespace kgo::profiling
