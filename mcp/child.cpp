// Child processes of the MCP server: spawn kgo in its own process group, read its output without
// blocking, and kill a whole process tree (the harness puts Python in a group of its own).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "mcp/mcp.hpp"
#include "core/error.hpp"

namespace kgo::mcp {

namespace {

std::filesystem::path self_exe() { return std::filesystem::read_symlink("/proc/self/exe"); }

// pid -> parent pid and pid -> process group, for every process visible in /proc.
void scan_proc(std::map<int, int>& ppid, std::map<int, int>& pgid) {
  ppid.clear();
  pgid.clear();
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream f(e.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(f)), {});
    // Fields after the command name (which may hold spaces) start past the last ')'.
    auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    int parent = 0, group = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %d %d", &state, &parent, &group) != 3) continue;
    ppid[std::stoi(name)] = parent;
    pgid[std::stoi(name)] = group;
  }
}

std::set<int> descendants(int root, const std::map<int, int>& ppid, const std::map<int, int>& pgid) {
  std::set<int> tree{root};
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [pid, parent] : ppid) {
      bool in_group = false;
      for (int t : tree) in_group = in_group || pgid.at(pid) == t;
      if (!tree.count(pid) && (tree.count(parent) || in_group)) grew = tree.insert(pid).second || grew;
    }
  }
  return tree;
}

}  // namespace

Child spawn_child(const std::vector<std::string>& argv) {
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) || ::pipe2(err_pipe, O_CLOEXEC)) {
    throw Error(std::string("pipe failed: ") + std::strerror(errno), ExitCode::internal);
  }
  std::string exe = self_exe().string();
  std::vector<std::string> copy = argv;
  std::vector<char*> args{exe.data()};
  for (auto& s : copy) args.push_back(s.data());
  args.push_back(nullptr);
  Child c;
  c.start = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid < 0) throw Error(std::string("fork failed: ") + std::strerror(errno), ExitCode::internal);
  if (pid == 0) {
    ::setpgid(0, 0);
    int devnull = ::open("/dev/null", O_RDONLY);
    ::dup2(devnull, 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    ::execv(exe.c_str(), args.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  for (int fd : {out_pipe[0], err_pipe[0]}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  c.pid = pid;
  c.out_fd = out_pipe[0];
  c.err_fd = err_pipe[0];
  return c;
}

bool drain(int& fd, std::string& sink) {
  char buf[65536];
  for (;;) {
    ssize_t r = ::read(fd, buf, sizeof buf);
    if (r > 0) {
      sink.append(buf, static_cast<size_t>(r));
      continue;
    }
    if (r < 0 && (errno == EAGAIN || errno == EINTR)) return true;
    ::close(fd);
    fd = -1;
    return false;
  }
}

void kill_tree(int pid) {
  // Freeze first so that nothing forks between the scan and the kill, then rescan until stable.
  std::map<int, int> ppid, pgid;
  std::set<int> stopped;
  for (int round = 0; round < 20; ++round) {
    scan_proc(ppid, pgid);
    std::set<int> tree = descendants(pid, ppid, pgid);
    bool fresh = false;
    for (int p : tree) {
      if (stopped.insert(p).second) {
        fresh = true;
        ::kill(p, SIGSTOP);
      }
    }
    if (!fresh) break;
  }
  for (int p : stopped) {
    ::kill(p, SIGKILL);
    ::kill(-p, SIGKILL);  // a group it leads, for members whose parent already exited
  }
}

int reap(int pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 70;
}

}  // namespace kgo::mcp
