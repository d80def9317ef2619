// `kgo sweep run|status|collect|cancel|exec`: a matrix of kgo jobs on every local GPU or on a Slurm
// cluster (sweep/). `exec` is what each worker or array task runs; it is not meant to be typed.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/lock.hpp"
#include "sweep/backend.hpp"
#include "sweep/collect.hpp"
#include "sweep/job.hpp"

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

// `missing_fails`: after a run that waited for every job, a job without a result died without writing one.
void flag_failures(Context& ctx, const nlohmann::json& c, bool missing_fails = false) {
  int bad = c.value("fail", 0) + c.value("timeout", 0) + c.value("error", 0) + (missing_fails ? c.value("missing", 0) : 0);
  if (bad > 0) ctx.exit_code = 1;
}

void run(SweepOptions& o, Context& ctx) {
  if (o.run.backend != "local" && o.run.backend != "slurm") {
    throw Error("--backend must be local or slurm", ExitCode::usage);
  }
  if (!o.gpus.empty()) o.run.gpus = o.gpus;
  o.run.progress = !o.quiet && !ctx.json;
  std::filesystem::path dir = o.dir.empty() ? std::filesystem::path(o.spec.stem().string() + ".sweep") : o.dir;
  sweep::Sweep s = sweep::expand_spec(o.spec, dir);
  std::filesystem::create_directories(s.dir);
  // Two runners on one folder would run every job twice and race on its results.
  core::FileLock runner(s.dir / ".runner.lock", "sweep folder " + s.dir.string() + " (a kgo sweep run is using it)",
                        std::chrono::milliseconds(0));
  sweep::save_or_match_plan(s);
  sweep::RunSummary r = o.run.backend == "local" ? sweep::run_local(s, o.run) : sweep::run_slurm(s, o.run);
  std::string text = fmt::format("sweep '{}' ({}): {} jobs, {} had a result, {} {} now", s.name, r.backend, r.jobs,
                                 r.already_done, r.submitted.size(), r.backend == "local" ? "ran" : "submitted");
  if (!r.slurm_job_id.empty()) text += " as Slurm job " + r.slurm_job_id;
  if (r.queued_elsewhere) text += fmt::format(", {} still queued from before", r.queued_elsewhere);
  text += fmt::format("\nresults: {}\nnext: kgo sweep status {} ; kgo sweep collect {}\n", counts_text(r.counts),
                      s.dir.string(), s.dir.string());
  nlohmann::json j = sweep::to_json(r);
  j["dir"] = s.dir.string();
  emit(ctx, j, text);
  if (r.backend == "local" || o.run.wait) flag_failures(ctx, r.counts, /*missing_fails=*/true);
}

void status(const SweepOptions& o, Context& ctx) {
  sweep::Sweep s = sweep::load_plan(o.dir);
  nlohmann::json c = sweep::result_counts(s);
  nlohmann::json queue = nlohmann::json::object();
  for (const auto& t : sweep::slurm_queue(s)) queue[t.state] = queue.value(t.state, 0) + 1;
  std::string text = fmt::format("sweep '{}': {} jobs: {}", s.name, s.jobs.size(), counts_text(c));
  for (const auto& [state, n] : queue.items()) text += fmt::format("; {} {} in Slurm", n.get<int>(), state);
  emit(ctx, {{"name", s.name}, {"dir", s.dir.string()}, {"jobs", s.jobs.size()}, {"counts", c}, {"queue", queue}},
       text + "\n");
}

void collect(const SweepOptions& o, Context& ctx) {
  sweep::Sweep s = sweep::load_plan(o.dir);
  sweep::Collected c = sweep::collect(s);
  std::string text = sweep::render_markdown(c) + "\nwritten: ";
  for (const auto& f : c.files) text += f + " ";
  emit(ctx, sweep::to_json(c, false), text + "\n");
  flag_failures(ctx, c.counts);
}

void cancel(const SweepOptions& o, Context& ctx) {
  sweep::Sweep s = sweep::load_plan(o.dir);
  std::vector<std::string> cancelled;
  bool has_slurm = std::filesystem::exists(s.dir / "slurm" / "submissions.json");
  if (has_slurm) cancelled = sweep::slurm_cancel(s, o.jobs);
  bool local = o.jobs.empty() && sweep::local_cancel(s);
  std::string text = has_slurm ? fmt::format("scancel {}\n", fmt::join(cancelled, " ")) : "";
  if (local) text += "asked the local runner to start no new job; running jobs finish (their timeout bounds them)\n";
  if (!has_slurm && !local) text = "nothing to cancel: no Slurm submission and no local runner for this sweep\n";
  emit(ctx, {{"slurm_cancelled", cancelled}, {"local_runner_stopped", local}}, text);
}

void exec(const SweepOptions& o, Context& ctx) {
  sweep::Sweep s = sweep::load_plan(o.dir);
  int id;
  if (o.job) id = *o.job;
  else if (o.submission && o.task) id = sweep::job_for_task(s, *o.submission, *o.task);
  else throw Error("kgo sweep exec needs --job ID, or --submission N --task I", ExitCode::usage);
  nlohmann::json r = sweep::run_job(s, id);
  emit(ctx, r, fmt::format("job {} {}: {}\n", id, r["job"]["label"].get<std::string>(),
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
  r->add_option("--backend", o->run.backend, "local or slurm")->capture_default_str();
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
