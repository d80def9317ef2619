// The MCP server loop: JSON-RPC 2.0 over newline-delimited stdio. One poll loop watches stdin and
// every running tool's pipes, so a call can be cancelled, time out, or report progress while
// others run. Only protocol messages go to stdout; logs go to stderr.
#include <poll.h>
#include <unistd.h>

#include <iostream>
#include <map>

#include "mcp/mcp.hpp"
#include "core/error.hpp"
#include "core/resources.hpp"

namespace kgo::mcp {

// mcp_methods.cpp; `recent`: the workspace the latest tool call named, for resources.
json handle_request(const std::string& method, const json& params, const ServerOptions& opts,
                    const std::optional<std::filesystem::path>& recent);

namespace {

using Clock = std::chrono::steady_clock;

struct Running {
  json id;
  const Tool* tool = nullptr;
  Child child;
  std::optional<json> progress_token;
  int progress = 0;
  Clock::time_point next_progress;
  std::vector<std::vector<std::string>> rest;  // a seed tool's later kgo commands
  std::optional<std::filesystem::path> scratch;  // and its scratch directory, removed at the end
};

// Removes a seed call's scratch directory (its files are the call's, nothing else's).
void drop_scratch(Running& r) {
  if (!r.scratch) return;
  std::error_code ec;
  std::filesystem::remove_all(*r.scratch, ec);
  r.scratch.reset();
}

void send(const json& message) {
  std::string line = message.dump() + "\n";
  for (size_t done = 0; done < line.size();) {
    ssize_t w = ::write(1, line.data() + done, line.size() - done);
    if (w <= 0) return;
    done += static_cast<size_t>(w);
  }
}

void send_result(const json& id, const json& result) { send({{"jsonrpc", "2.0"}, {"id", id}, {"result", result}}); }

void send_error(const json& id, int code, const std::string& message) {
  send({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
}

json tool_result(const json& answer, bool is_error) {
  json doc = speak_mcp(answer);
  return {{"content", json::array({{{"type", "text"}, {"text", doc.dump()}}})},
          {"structuredContent", doc},
          {"isError", is_error}};
}

// The workspace a call works on, when it names one: resources then read that workspace.
std::optional<std::filesystem::path> named_workspace(const std::string& tool, const json& args) {
  namespace fs = std::filesystem;
  if (!args.is_object()) return std::nullopt;
  if (args.contains("workspace") && args["workspace"].is_string()) return fs::absolute(args["workspace"].get<std::string>());
  if (tool == "init" && args.contains("name") && args["name"].is_string()) {
    fs::path dir = args.contains("dir") && args["dir"].is_string() ? fs::path(args["dir"].get<std::string>()) : fs::current_path();
    return fs::absolute(dir / ("kernel_opt_" + args["name"].get<std::string>()));
  }
  return std::nullopt;
}

json refusal(const std::string& message, int exit_code) { return {{"error", message}, {"exit_code", exit_code}}; }

// The call's answer from the child's exit code and stdout (kgo prints one JSON line with --json).
json finish(Running& r, int code) {
  std::string out = r.child.out;
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  std::string last = out.substr(out.rfind('\n') == std::string::npos ? 0 : out.rfind('\n') + 1);
  json doc = json::parse(last, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    std::string err = r.child.err.size() > 2000 ? r.child.err.substr(r.child.err.size() - 2000) : r.child.err;
    return tool_result(refusal("kgo " + r.tool->name + " exited " + std::to_string(code) +
                                   " without a JSON answer: " + err,
                               code == 0 ? 70 : code),
                       true);
  }
  bool refused = doc.contains("error") && doc.contains("exit_code");
  return tool_result(doc, refused);
}

class Server {
 public:
  explicit Server(const ServerOptions& o) : m_opts(o) {}

  int run() {
    std::string pending;
    bool open = true;
    while (open || !m_running.empty()) {
      std::vector<pollfd> fds;
      if (open) fds.push_back({0, POLLIN, 0});
      for (auto& [key, r] : m_running) {
        if (r.child.out_fd >= 0) fds.push_back({r.child.out_fd, POLLIN, 0});
        if (r.child.err_fd >= 0) fds.push_back({r.child.err_fd, POLLIN, 0});
      }
      ::poll(fds.data(), fds.size(), 200);
      if (open && !fds.empty() && fds[0].fd == 0 && fds[0].revents) {
        char buf[65536];
        ssize_t n = ::read(0, buf, sizeof buf);
        if (n <= 0) {
          open = false;
          for (auto& [key, r] : m_running) kill_tree(r.child.pid);  // the client left: stop everything
        } else {
          pending.append(buf, static_cast<size_t>(n));
        }
        for (auto nl = pending.find('\n'); nl != std::string::npos; nl = pending.find('\n')) {
          std::string line = pending.substr(0, nl);
          pending.erase(0, nl + 1);
          if (line.find_first_not_of(" \r\t") != std::string::npos) on_message(line);
        }
      }
      service_children();
    }
    return 0;
  }

 private:
  void on_message(const std::string& line) {
    json msg = json::parse(line, nullptr, false);
    if (msg.is_discarded() || !msg.is_object()) return send_error(nullptr, -32700, "parse error: not a JSON object");
    std::string method = msg.value("method", "");
    json params = msg.value("params", json::object());
    if (!msg.contains("id")) return on_notification(method, params);
    json id = msg["id"];
    if (method == "tools/call") return start_call(id, params);
    try {
      send_result(id, handle_request(method, params, m_opts, m_recent));
    } catch (const Error& e) {
      send_error(id, e.code() == ExitCode::usage ? -32602 : -32601, e.what());
    } catch (const std::exception& e) {
      send_error(id, -32603, e.what());
    }
  }

  void on_notification(const std::string& method, const json& params) {
    if (method != "notifications/cancelled") return;
    std::string key = params.value("requestId", json()).dump();
    auto it = m_running.find(key);
    if (it == m_running.end()) return;
    std::cerr << "kgo mcp: cancelled " << it->second.tool->name << " (request " << key << ")\n";
    kill_tree(it->second.child.pid);
    close_child(it->second);
    reap(it->second.child.pid);
    drop_scratch(it->second);
    m_running.erase(it);  // a cancelled request gets no reply
  }

  void start_call(const json& id, const json& params) {
    std::string name = params.value("name", "");
    const Tool* tool = find_tool(name);
    if (!tool) return send_error(id, -32602, "unknown tool '" + name + "'; tools/list names them");
    std::vector<std::string> argv{"--json"};
    Running r;
    try {
      json arguments = params.value("arguments", json::object());
      if (!tool->seed_kind.empty() && seed_call(arguments)) {
        SeedChain chain = seed_chain(tool->seed_kind, arguments, m_opts);
        r.scratch = chain.scratch;
        argv.insert(argv.end(), chain.steps.front().begin(), chain.steps.front().end());
        r.rest.assign(chain.steps.begin() + 1, chain.steps.end());
      } else {
        auto args = tool->argv(arguments, m_opts);
        if (auto ws = named_workspace(name, arguments)) m_recent = ws;
        argv.insert(argv.end(), args.begin(), args.end());
      }
    } catch (const Error& e) {
      drop_scratch(r);
      return send_result(id, tool_result(refusal(e.what(), e.exit_code()), true));
    } catch (const std::filesystem::filesystem_error& e) {  // the seed tools' scratch directory
      drop_scratch(r);
      return send_result(id, tool_result(refusal(std::string("cannot write the scratch workspace: ") + e.what() +
                                                     "; point TMPDIR at a writable directory",
                                                 static_cast<int>(ExitCode::not_writable)),
                                         true));
    }
    r.id = id;
    r.tool = tool;
    if (params.contains("_meta") && params["_meta"].contains("progressToken")) {
      r.progress_token = params["_meta"]["progressToken"];
    }
    r.child = spawn_child(argv);
    r.child.deadline = r.child.start + std::chrono::milliseconds(static_cast<long long>(tool->timeout_s * m_opts.timeout_scale * 1000));
    r.next_progress = r.child.start + std::chrono::milliseconds(500);
    std::cerr << "kgo mcp: " << name << " started (pid " << r.child.pid << ")\n";
    m_running[id.dump()] = std::move(r);
  }

  void service_children() {
    auto now = Clock::now();
    for (auto it = m_running.begin(); it != m_running.end();) {
      Running& r = it->second;
      if (r.child.out_fd >= 0) drain(r.child.out_fd, r.child.out);
      if (r.child.err_fd >= 0) drain(r.child.err_fd, r.child.err);
      if (now >= r.child.deadline) {
        kill_tree(r.child.pid);
        close_child(r);
        reap(r.child.pid);
        drop_scratch(r);
        send_result(r.id, tool_result(refusal(r.tool->name + " ran past its limit of " +
                                                  std::to_string(static_cast<int>(r.tool->timeout_s * m_opts.timeout_scale)) +
                                                  " s and was killed with its processes; narrow it (fewer shapes) or "
                                                  "start the server with a larger --timeout-scale",
                                              static_cast<int>(ExitCode::failure)),
                                      true));
        it = m_running.erase(it);
        continue;
      }
      if (r.child.out_fd < 0 && r.child.err_fd < 0) {
        int code = reap(r.child.pid);
        if (code == 0 && !r.rest.empty()) {  // a seed call's next step, within the same time limit
          std::vector<std::string> argv{"--json"};
          argv.insert(argv.end(), r.rest.front().begin(), r.rest.front().end());
          r.rest.erase(r.rest.begin());
          auto deadline = r.child.deadline;
          r.child = spawn_child(argv);
          r.child.deadline = deadline;
          ++it;
          continue;
        }
        send_result(r.id, finish(r, code));
        drop_scratch(r);
        it = m_running.erase(it);
        continue;
      }
      if (r.tool->long_running && r.progress_token && now >= r.next_progress) progress(r, now);
      ++it;
    }
  }

  // A heartbeat with the child's latest stderr line: the client sees the tool is alive and where.
  void progress(Running& r, Clock::time_point now) {
    r.next_progress = now + std::chrono::seconds(1);
    std::string err = r.child.err;
    while (!err.empty() && err.back() == '\n') err.pop_back();
    std::string last = err.substr(err.rfind('\n') == std::string::npos ? 0 : err.rfind('\n') + 1);
    double s = std::chrono::duration<double>(now - r.child.start).count();
    std::string message = r.tool->name + ": " + std::to_string(static_cast<int>(s)) + " s" + (last.empty() ? "" : "; " + last);
    send({{"jsonrpc", "2.0"},
          {"method", "notifications/progress"},
          {"params", {{"progressToken", *r.progress_token}, {"progress", ++r.progress}, {"message", message}}}});
  }

  static void close_child(Running& r) {
    for (int* fd : {&r.child.out_fd, &r.child.err_fd}) {
      if (*fd >= 0) ::close(*fd);
      *fd = -1;
    }
  }

  ServerOptions m_opts;
  std::map<std::string, Running> m_running;  // by the request id's JSON text
  std::optional<std::filesystem::path> m_recent;  // the workspace the latest call named
};

}  // namespace

int serve(const ServerOptions& opts) {
  tools();  // build (and validate) the table before the first request
  std::cerr << "kgo mcp: serving on stdio (kgo " << core::kgo_version() << ")\n";
  return Server(opts).run();
}

}  // namespace kgo::mcp
