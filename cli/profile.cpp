// `kgo profile [vN] [--kernel-regex R] [--launch-skip N] [--set basic|detailed|full]`: Nsight Compute
// on the workspace kernel through the harness, with a bottleneck verdict in the record.
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "profiling/profile.hpp"

namespace kgo::cli {

namespace {

struct ProfileCli {
  std::optional<std::string> version;
  profiling::ProfileOptions opts;
};

}  // namespace

void register_profile(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<ProfileCli>();
  CLI::App* sub = app.add_subcommand("profile", "Profile the kernel with Nsight Compute and classify the bottleneck");
  sub->add_option("version", o->version, "Record version, e.g. v3 (default: the latest record)");
  sub->add_option("--kernel-regex", o->opts.kernel_regex, "Profile launches whose name matches this regex (ncu -k regex:R)");
  sub->add_option("--launch-skip", o->opts.launch_skip, "Skip this many matching launches first (with --launch-count 1)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--set", o->opts.set, "ncu section set: basic, detailed or full")
      ->check(CLI::IsMember({"basic", "detailed", "full"}))->capture_default_str();
  sub->add_option("--threshold", o->opts.thresholds,
                  "Verdict threshold NAME=VALUE (repeatable): ncu_high, ncu_low, skill_bound, skill_latency, "
                  "dominance_points, balance_points, occupancy_ratio, theoretical_low");
  sub->add_option("--thresholds", o->opts.thresholds_file, "JSON file of verdict thresholds {NAME: VALUE}");
  sub->add_flag("--summary-first", o->opts.summary_first,
                "List every launch with a cheap ncu pass first, then profile the chosen one (instead of the NVTX range)");
  sub->add_option("--ncu", o->opts.ncu, "Nsight Compute executable (default: ncu from PATH or the CUDA install)");
  sub->add_option("--warmup", o->opts.warmup, "Unprofiled calls before the profiled one")->capture_default_str();
  sub->add_option("--timeout", o->opts.timeout_s, "Seconds for each ncu run")->capture_default_str();
  sub->add_option("--shape", o->opts.target.shapes, "Shape to profile (default: the workspace's first)");
  add_run_options(sub, o->opts.target);
  add_kernel_options(sub, o->opts.target);
  add_workspace_option(sub, ctx);
  sub->callback([o, &ctx] {
    profiling::ProfileOptions opts = o->opts;
    opts.version = o->version;
    opts.target.device = "cuda";
    profiling::ProfileResult r = profiling::run_profile(workspace_dir(ctx), opts);
    emit(ctx, profiling::to_json(r), profiling::render_text(r));
  });
}

}  // namespace kgo::cli
