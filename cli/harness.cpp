// `kgo harness start|stop|status`: the warm harness. While it runs, check, bench, baseline, env and
// ops send their requests to it instead of starting Python (and torch) each time.
#include <memory>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "harness/daemon.hpp"

namespace kgo::cli {

namespace {

struct HarnessOptions {
  std::optional<std::string> python;
  double idle_minutes = 15;
  std::string device = "cuda";
  double grace_s = 10;
};

nlohmann::json status_json(const harness::DaemonStatus& s) {
  return {{"running", s.running},     {"busy", s.busy},         {"started", s.started},
          {"socket", s.socket.string()},
          {"log", s.log.string()},    {"daemon", s.info},       {"warmup", s.warmup}};
}

std::string status_text(const harness::DaemonStatus& s) {
  if (!s.running) return "warm harness: not running (kgo harness start)\n";
  if (s.busy) {
    return fmt::format("warm harness: running, busy with a request\n  socket {}\n  log {}\n", s.socket.string(),
                       s.log.string());
  }
  const auto& i = s.info;
  std::string worker = i.contains("worker") && i["worker"].is_object()
                           ? fmt::format("worker on {}", i["worker"].value("device", "?"))
                           : "no worker yet";
  return fmt::format("warm harness: running, pid {}, {} request(s) served, up {:.0f} s, {}, exits after {:.0f} s "
                     "idle\n  socket {}\n  log {}\n",
                     i.value("pid", 0), i.value("served", 0), i.value("uptime_s", 0.0), worker,
                     i.value("idle_s", 0.0), s.socket.string(), s.log.string());
}

void run_start(const HarnessOptions& o, Context& ctx) {
  if (!(o.idle_minutes > 0)) throw Error("--idle-minutes must be positive", ExitCode::usage);
  if (o.device != "cuda" && o.device != "cpu") throw Error("--device must be cuda or cpu", ExitCode::usage);
  harness::PythonInterpreter py = harness::locate_python(o.python);
  harness::DaemonStatus s = harness::start_daemon(py, o.idle_minutes * 60, o.device);
  std::string text = status_text(s);
  if (s.warmup.is_object()) {
    text += fmt::format("  warm-up ({}): {} {}\n", o.device, s.warmup.value("verdict", "?"),
                        s.warmup.value("message", ""));
  }
  emit(ctx, status_json(s), (s.started ? "started " : "already running: ") + text);
}

void run_stop(const HarnessOptions& o, Context& ctx) {
  harness::PythonInterpreter py = harness::locate_python(o.python);
  bool was = harness::stop_daemon(py, std::chrono::milliseconds(static_cast<long long>(o.grace_s * 1000)));
  emit(ctx, {{"stopped", was}}, was ? "warm harness stopped" : "no warm harness was running");
}

void run_status(const HarnessOptions& o, Context& ctx) {
  harness::PythonInterpreter py = harness::locate_python(o.python);
  harness::DaemonStatus s = harness::daemon_status(py);
  emit(ctx, status_json(s), status_text(s));
}

}  // namespace

void register_harness(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<HarnessOptions>();
  CLI::App* h = app.add_subcommand("harness", "The warm harness: keep Python, torch and compiled kernels loaded");
  h->require_subcommand(1);
  CLI::App* start = h->add_subcommand("start", "Start it (or report the running one) and warm its worker");
  start->add_option("--idle-minutes", o->idle_minutes, "Exit after this long without a request")->capture_default_str();
  start->add_option("--device", o->device, "Warm the worker on cuda or cpu")->capture_default_str();
  start->callback([o, &ctx] { run_start(*o, ctx); });
  CLI::App* stop = h->add_subcommand("stop", "Stop it (killed after --grace seconds if busy)");
  stop->add_option("--grace", o->grace_s, "Seconds to wait for a busy harness")->capture_default_str();
  stop->callback([o, &ctx] { run_stop(*o, ctx); });
  CLI::App* status = h->add_subcommand("status", "Whether it runs, and what it has served");
  status->callback([o, &ctx] { run_status(*o, ctx); });
  for (CLI::App* s : {start, stop, status}) {
    add_python_option(s, o->python);
  }
}

}  // namespace kgo::cli
