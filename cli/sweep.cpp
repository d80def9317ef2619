// `kgo sweep run|status|collect|cancel|exec`: a matrix of kgo jobs on every local GPU or on a Slurm
// cluster (sweep/). `exec` is what each worker or array task runs; it is not meant to be typed.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "sweep/collect.hpp"
#include "sweep/workflow.hpp"

namespace kgo::cli {

namespace {

struct SweepOptions {
  std::filesystem::path spec, dir;
  sweep::RunOptions run;
  std::vector<std::string> gpus;
  bool quiet = false;
  std::vector<int> jobs;
  std::optional<int> job, submission, task;
};

std::string counts_text(const nlohmann::json& c) {
  return fmt::format("{} ok, {} fail, {} timeout, {} error, {} without a result", c.value("ok", 0),
                     c.value("fail", 0), c.value("timeout", 0), c.value("error", 0), c.value("missing", 0));
}

void run(SweepOptions& o, Context& ctx) {
  if (!o.gpus.empty()) o.run.gpus = o.gpus;
  o.run.progress = !o.quiet && !ctx.json;
  sweep::RunResult res = sweep::run_sweep(o.spec, o.dir, o.run);
  const sweep::Sweep& s = res.sweep;
  const sweep::RunSummary& r = res.summary;
  std::string text = fmt::format("sweep '{}' ({}): {} jobs, {} had a result, {} {} now", s.name, r.backend, r.jobs,
                                 r.already_done, r.submitted.size(), res.backend->verb);
  if (!r.slurm_job_id.empty()) text += " as Slurm job " + r.slurm_job_id;
  if (r.queued_elsewhere) text += fmt::format(", {} still queued from before", r.queued_elsewhere);
  text += fmt::format("\nresults: {}\nnext: kgo sweep status {} ; kgo sweep collect {}\n", counts_text(r.counts),
                      s.dir.string(), s.dir.string());
  nlohmann::json j = sweep::to_json(r);
  j["dir"] = s.dir.string();
  emit(ctx, j, text);
  if (res.failed) ctx.exit_code = 1;
}

void status(const SweepOptions& o, Context& ctx) {
  sweep::StatusResult r = sweep::sweep_status(o.dir);
  std::string text = fmt::format("sweep '{}': {} jobs: {}", r.sweep.name, r.sweep.jobs.size(), counts_text(r.counts));
  for (const auto& [state, n] : r.queue.items()) text += fmt::format("; {} {} in Slurm", n.get<int>(), state);
  emit(ctx, {{"name", r.sweep.name}, {"dir", r.sweep.dir.string()}, {"jobs", r.sweep.jobs.size()},
             {"counts", r.counts}, {"queue", r.queue}},
       text + "\n");
}

void collect(const SweepOptions& o, Context& ctx) {
  sweep::Sweep s = sweep::load_plan(o.dir);
  sweep::Collected c = sweep::collect(s);
  std::string text = sweep::render_markdown(c) + "\nwritten: ";
  for (const auto& f : c.files) text += f + " ";
  emit(ctx, sweep::to_json(c, false), text + "\n");
  if (sweep::has_failures(c.counts, false)) ctx.exit_code = 1;
}

void cancel(const SweepOptions& o, Context& ctx) {
  sweep::CancelResult r = sweep::cancel_sweep(o.dir, o.jobs);
  std::string text = r.had_slurm ? fmt::format("scancel {}\n", fmt::join(r.slurm_cancelled, " ")) : "";
  if (r.local_runner_stopped) {
    text += "asked the local runner to start no new job; running jobs finish (their timeout bounds them)\n";
  }
  if (!r.had_slurm && !r.local_runner_stopped) {
    text = "nothing to cancel: no Slurm submission and no local runner for this sweep\n";
  }
  emit(ctx, {{"slurm_cancelled", r.slurm_cancelled}, {"local_runner_stopped", r.local_runner_stopped}}, text);
}

void exec(const SweepOptions& o, Context& ctx) {
  nlohmann::json r = sweep::exec_job(o.dir, o.job, o.submission, o.task);
  emit(ctx, r, fmt::format("job {} {}: {}\n", r["job"]["id"].dump(), r["job"]["label"].get<std::string>(),
                           r["status"].get<std::string>()));
}

}  // namespace

void register_sweep(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<SweepOptions>();
  CLI::App* sub = app.add_subcommand("sweep", "Run a matrix of kgo jobs on every local GPU or on a Slurm cluster");
  sub->require_subcommand(1);
  CLI::App* r = sub->add_subcommand("run", "Expand SPEC into jobs and run those without a result (resumes)");
  r->add_option("spec", o->spec, "Sweep spec, JSON (schemas/sweep/spec.schema.json)")->required();
  r->add_option("--dir", o->dir, "Sweep folder: plan, results, table (default: <spec name>.sweep; shared for slurm)");
  r->add_option("--backend", o->run.backend, "local or slurm (sweep::backends())")->capture_default_str();
  r->add_option("--gpus", o->gpus, "local: GPU ids, one worker each (default: every visible GPU)")->delimiter(',');
  r->add_option("--cpu-jobs", o->run.cpu_jobs, "local: CPU-only jobs at once (default: the CPU count)");
  r->add_option("--throttle", o->run.throttle, "slurm: array tasks running at once (--array=0-N%K)");
  r->add_option("--partition", o->run.partition, "slurm: partition");
  r->add_option("--sbatch-arg", o->run.sbatch_args, "slurm: extra sbatch argument, e.g. --gres=gpu:1 (repeatable)")
      ->allow_extra_args(false);
  r->add_flag("--wait", o->run.wait, "slurm: wait until every submitted task has left the queue");
  r->add_flag("--quiet", o->quiet, "No progress line");
  r->callback([o, &ctx] { run(*o, ctx); });
  for (auto [name, help, fn] : {std::tuple{"status", "Results so far and Slurm queue states",
                                           &status},
                                std::tuple{"collect", "One table of every job: sweep.md, sweep.csv, sweep-table.json, sweep.svg",
                                           &collect},
                                std::tuple{"cancel", "scancel the sweep's Slurm tasks (or --job ones); stop a local runner",
                                           &cancel}}) {
    CLI::App* c = sub->add_subcommand(name, help);
    c->add_option("dir", o->dir, "Sweep folder")->required();
    if (std::string(name) == "cancel") c->add_option("--job", o->jobs, "Cancel only these job ids (repeatable)");
    c->callback([o, &ctx, fn = fn] { fn(*o, ctx); });
  }
  CLI::App* e = sub->add_subcommand("exec", "Run one job of a sweep (what workers and array tasks run)");
  e->group("");
  e->add_option("dir", o->dir, "Sweep folder")->required();
  e->add_option("--job", o->job, "Job id");
  e->add_option("--submission", o->submission, "Slurm submission number");
  e->add_option("--task", o->task, "Array task index ($SLURM_ARRAY_TASK_ID)");
  e->callback([o, &ctx] { exec(*o, ctx); });
}

}  // namespace kgo::cli
