#include "harness/client.hpp"

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/harness_protocol.hpp"
#include "core/tools.hpp"
#include "core/process.hpp"
#include "harness/daemon.hpp"
#include "harness/warm_judge.hpp"
#include "harness/fields.hpp"

namespace kgo::harness {

namespace fs = std::filesystem;

namespace {

// Forwards complete "kgo-harness: ..." lines; partial lines wait for the next chunk.
class ProgressForwarder {
 public:
  void feed(std::string_view chunk) {
    m_pending.append(chunk);
    size_t nl;
    while ((nl = m_pending.find('\n')) != std::string::npos) {
      std::string line = m_pending.substr(0, nl);
      m_pending.erase(0, nl + 1);
      if (line.rfind("kgo-harness:", 0) == 0) std::cerr << line << std::endl;
    }
  }

 private:
  std::string m_pending;
};

std::string last_json_line(const std::string& out) {
  size_t end = out.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "";
  size_t start = out.rfind('\n', end);
  return out.substr(start == std::string::npos ? 0 : start + 1, end + 1 - (start == std::string::npos ? 0 : start + 1));
}

// `o` with a result kgo wrote itself: the harness was killed or never answered.
HarnessOutcome synthesized(const HarnessCall& call, HarnessOutcome o, const std::string& verdict,
                           const std::string& message) {
  o.synthesized = true;
  o.verdict = verdict;
  o.result = {{"protocol", protocol::kVersion},
              {"command", call.command},
              {"verdict", verdict},
              {"message", message},
              {"error", nullptr},
              {"synthesized_by_kgo", true},
              {"warnings", nlohmann::json::array()}};
  return o;
}

HarnessOutcome finish(const HarnessCall& call, HarnessOutcome o, const std::string& out, int exit_code) {
  // One JSON object on stdout (pretty or compact); a stray line before it must not hide it.
  nlohmann::json result = nlohmann::json::parse(out, nullptr, false);
  for (size_t pos = out.find("\n{"); result.is_discarded() && pos != std::string::npos;
       pos = out.find("\n{", pos + 1)) {
    result = nlohmann::json::parse(out.substr(pos + 1), nullptr, false);
  }
  if (result.is_discarded()) result = nlohmann::json::parse(last_json_line(out), nullptr, false);
  if (!result.is_object() || !result.contains("verdict")) {
    throw Error(fmt::format("the Python harness ({} {}) exited with status {} without a result; "
                            "this is a bug in kgo's harness or a broken Python environment (try "
                            "`kgo env`). Its last stderr lines:\n{}",
                            call.python.resolved.string(), call.command, exit_code,
                            o.stderr_tail.empty() ? "(none)" : o.stderr_tail),
                ExitCode::harness_error);
  }
  std::string verdict = jstr(result, "verdict");
  if (verdict == "ERROR") {
    if (jstr(result, "error") == "no confinement") throw Error(jstr(result, "message"), ExitCode::no_cell);
    // `error` holds the detail, except where it is a Python traceback: then the message names the exception.
    std::string err = jstr(result, "error", jstr(result, "message", "?"));
    if (err.starts_with("Traceback") && !jstr(result, "message").empty()) err = jstr(result, "message");
    throw Error("the harness rejected the " + call.command + " request: " + err, ExitCode::harness_error);
  }
  if (!is_verdict(verdict)) {
    throw Error("the harness returned an unknown verdict '" + verdict + "'", ExitCode::harness_error);
  }
  o.result = std::move(result);
  o.verdict = verdict;
  return o;
}

}  // namespace

bool is_verdict(const std::string& v) {
  return std::find(protocol::kVerdicts.begin(), protocol::kVerdicts.end(), v) != protocol::kVerdicts.end();
}

const nlohmann::json& cuda_tools() {
  static const nlohmann::json tools = [] {
    nlohmann::json t = nlohmann::json::object();
    for (const char* name : {"nvcc", "ncu"}) {
      auto found = core::find_tool(name);
      t[name] = found ? nlohmann::json(found->string()) : nlohmann::json(nullptr);
    }
    return t;
  }();
  return tools;
}

std::string tail_lines(const std::string& text, size_t max_lines) {
  size_t pos = text.size();
  while (pos > 0 && (text[pos - 1] == '\n' || text[pos - 1] == '\r')) --pos;
  size_t end = pos;
  for (size_t n = 0; n < max_lines && pos > 0; ++n) {
    size_t nl = text.rfind('\n', pos - 1);
    pos = nl == std::string::npos ? 0 : nl;
    if (nl == std::string::npos) break;
  }
  std::string t = text.substr(pos, end - pos);
  if (!t.empty() && t.front() == '\n') t.erase(0, 1);
  return t;
}

HarnessOutcome run_harness(const HarnessCall& call) {
  nlohmann::json request = call.request;
  request["protocol"] = protocol::kVersion;
  request["command"] = call.command;
  if (!request.contains("tools")) request["tools"] = cuda_tools();
  std::chrono::milliseconds timeout = call.timeout;
  if (timeout.count() == 0) {
    double total = request.value("total_timeout_s", call.command == "bench"
                                                        ? protocol::command_default::bench::total_timeout_s
                                                        : protocol::request_default::total_timeout_s);
    double load = request.value("load_timeout_s", protocol::request_default::load_timeout_s);
    timeout = std::chrono::milliseconds(static_cast<long long>((total + load + k_outer_margin_s) * 1000));
  }
  HarnessOutcome o;
  std::optional<fs::path> found;
  if (call.cwd.empty()) {
    DaemonUse use = daemon_use(call.command, request.value("device", "cuda"));
    found = private_harness_socket(call.python);
    if (!found && use != DaemonUse::never) found = find_daemon_socket(call.python);
    if (!found && use == DaemonUse::start) found = ensure_daemon(call.python, request.value("device", "cuda"));
  }
  if (found) {
    const fs::path& socket = *found;
    auto t0 = std::chrono::steady_clock::now();
    DaemonReply r = daemon_call(socket, request.dump() + "\n", timeout);
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r.kind == DaemonReply::Kind::timed_out) {
      kill_daemon(socket);
      return synthesized(call, o, "TIMEOUT_FAIL",
                         fmt::format("the warm harness did not answer within kgo's outer limit of {:.0f} s and "
                                     "was killed with its process group",
                                     timeout.count() / 1000.0));
    }
    if (r.kind == DaemonReply::Kind::broken) {
      return synthesized(call, o, "CRASH",
                         "the warm harness closed the connection without a result (see its log beside " +
                             socket.string() + ")");
    }
    if (r.kind == DaemonReply::Kind::answered) return finish(call, o, r.line, 0);
  }
  core::ProcessOptions opts;
  opts.cwd = call.cwd;
  opts.stdin_data = request.dump() + "\n";
  opts.timeout = timeout;
  ProgressForwarder progress;
  if (call.progress) opts.on_stderr = [&progress](std::string_view c) { progress.feed(c); };
  std::vector<std::string> argv = {call.python.resolved.string(), "-I", harness_entry().string(), call.command};
  core::ProcessResult p = core::run_process(argv, opts);

  o.seconds = p.seconds;
  o.stderr_tail = tail_lines(p.err, 20);
  if (p.timed_out) {
    return synthesized(call, o, "TIMEOUT_FAIL",
                       fmt::format("the harness did not finish within kgo's outer limit of {:.0f} s and was "
                                   "killed with its whole process group",
                                   timeout.count() / 1000.0));
  }
  if (p.signaled) {
    const char* name = ::strsignal(p.signal);
    return synthesized(call, o, "CRASH",
                       fmt::format("the harness process was killed by signal {} ({})", p.signal, name ? name : "?"));
  }
  return finish(call, o, p.out, p.exit_code);
}

}  // namespace kgo::harness
