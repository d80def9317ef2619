#include "core/init.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <regex>
#include <cstring>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/untrusted.hpp"
#include "core/git.hpp"
#include "core/init_replace.hpp"
#include "core/markdown.hpp"
#include "core/resources.hpp"
#include "core/stamp.hpp"

namespace kgo::core {

const std::vector<std::string>& known_frameworks() {
  static const std::vector<std::string> k = {"triton", "cuda", "cutedsl", "gluon", "flydsl"};
  return k;
}

void validate_name(const std::string& name) {
  auto bad = [&](const std::string& why) {
    return Error("invalid workspace name '" + printable_utf8(name) + "': " + why +
                     "; use only letters, digits, '_', '.' and '-'",
                 ExitCode::bad_name);
  };
  if (name.empty()) throw bad("it is empty");
  if (name.find('/') != std::string::npos || name.find('\\') != std::string::npos) {
    throw bad("it contains a path separator");
  }
  if (name.find("..") != std::string::npos) throw bad("it contains '..'");
  if (name == ".") throw bad("'.' is not a name");
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-')) {
      if (static_cast<unsigned char>(c) >= 0x80) throw bad("it has a non-ASCII character");
      throw bad(std::string("character '") + c + "' is not allowed");
    }
  }
  if (name.size() > 100) throw bad("it is longer than 100 characters");
}

namespace {

constexpr const char* k_gitignore =
    "# Python caches\n__pycache__/\n*.pyc\n*.pyo\n.pytest_cache/\n"
    "# Profiler reports and large blobs (summaries are committed, raw reports are not)\n"
    "*.ncu-rep\n*.nsys-rep\n*.qdrep\n*.sqlite\nprofiles/*/att/*.att\nprofiles/*/att/*.out\n"
    "profiles/*/att/*.pftrace\nprofiles/*/att/*.otf2\n"
    "# Build outputs and kgo's private state\n*.so\n*.o\n.kgo/\n.triton_cache/\n";

// Kernel and reference sources are text of at most 4 MiB (README.md, "Input limits").
constexpr uintmax_t k_max_source_bytes = 4u << 20;

std::string readable_or_throw(const fs::path& p, const std::string& what) {
  std::error_code ec;
  if (!fs::exists(p, ec)) {
    throw Error(what + " " + p.string() + " does not exist; pass the path of an existing file",
                ExitCode::kernel_missing);
  }
  if (!fs::is_regular_file(p, ec)) {
    throw Error(what + " " + p.string() + " is not a regular file", ExitCode::kernel_missing);
  }
  if (fs::file_size(p, ec) > k_max_source_bytes) {
    throw Error(what + " " + p.string() + " is larger than 4 MiB, kgo's limit for a source file; pass the kernel's source, "
                    "not data or a build product",
                ExitCode::kernel_missing);
  }
  auto content = try_read_file(p);
  if (!content || ::access(p.c_str(), R_OK) != 0) {
    throw Error(what + " " + p.string() + " is not readable; check its permissions",
                ExitCode::kernel_missing);
  }
  std::string why = content->empty() ? "is empty"
                    : content->size() > k_max_source_bytes ? "is larger than 4 MiB, kgo's limit for a source file"
                    : content->find('\0') != std::string::npos ? "holds NUL bytes (a binary file, not source)"
                    : !valid_utf8(*content) ? "is not valid UTF-8 text" : "";
  if (!why.empty()) {
    throw Error(what + " " + p.string() + " " + why + "; pass the kernel's source file", ExitCode::kernel_missing);
  }
  return *content;
}

fs::path default_parent() {
  if (const char* env = std::getenv("KGO_WORKSPACES"); env && *env) return env;
  return "/tmp";
}

std::string shapes_text(const WorkspaceConfig& c) {
  if (c.shapes.empty()) return "TBD";
  std::string s;
  for (const auto& sh : c.shapes) s += (s.empty() ? "" : ", ") + shape_to_string(sh);
  return s;
}

bool defines_at_top(const std::string& source, const std::string& prefix) {
  for (size_t pos = 0; pos < source.size();) {
    size_t end = source.find('\n', pos);
    if (source.compare(pos, prefix.size(), prefix) == 0) return true;
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return false;
}

}  // namespace

bool carries_setup(const std::string& source, const nlohmann::json& contract) {
  std::string name = contract.is_object() ? contract.value("name", "auto") : "auto";
  if (name == "seed" || name == "fmh66") return true;
  if (name != "auto") return false;
  auto def = [&](const std::string& fn) {
    return defines_at_top(source, "def " + fn + "(") || defines_at_top(source, "def " + fn + " (");
  };
  return def("setup") && def("run_kernel") && !defines_at_top(source, "class ModelNew") &&
         !defines_at_top(source, "class Operator(");
}

// Stored whole rather than cut down to setup(): init runs no Python (a C++ cut would need Python's grammar),
// the bytes stay comparable with the init commit's kernel, and setup() may use any helper of its file. The
// judge runs only setup() and what it uses (tools/kgo_harness/problem_file.py).
std::string problem_file_text(const std::string& baseline_source) {
  return "# kgo: this workspace's problem definition, stored by `kgo init` from the baseline kernel. The judge makes\n"
         "# every candidate's inputs with this file's setup() (and only what setup() uses); a candidate's own\n"
         "# setup() is never called. A change to this file is refused like a change to the reference.\n" +
         baseline_source;
}

InitResult init_workspace(const InitRequest& req, const ResolvedPlatform& platform) {
  validate_name(req.name);
  if (std::find(known_frameworks().begin(), known_frameworks().end(), req.framework) ==
      known_frameworks().end()) {
    throw Error("unknown framework '" + req.framework +
                    "'; choose one of triton, cuda, cutedsl, gluon, flydsl",
                ExitCode::usage);
  }
  WorkspaceConfig cfg;
  cfg.name = req.name;
  cfg.platform = platform.canonical;
  cfg.platform_input = platform.input;
  cfg.arch = platform.arch;
  cfg.framework = req.framework;
  cfg.dtype = req.dtype;
  for (const auto& s : req.shapes) cfg.shapes.push_back(parse_shape(s));
  cfg.kernel_file = req.framework == "cuda" ? "kernel.cu" : "kernel.py";
  cfg.wiki_path = platform.wiki_path;
  cfg.wiki_fingerprint = platform.wiki_fingerprint;
  cfg.wiki_embedded = platform.wiki_embedded;
  cfg.notes = req.notes;
  cfg.max_iterations = req.max_iterations;
  cfg.contract = req.contract;
  cfg.kgo_version = kgo_version();
  cfg.created_at = utc_now_iso();

  std::string kernel = readable_or_throw(req.kernel, "kernel file");
  std::optional<std::string> reference;
  if (req.reference) {
    reference = readable_or_throw(*req.reference, "reference file");
    cfg.reference = req.reference->extension() == ".py" ? "ref.py" : req.reference->filename().string();
  }
  if (cfg.kernel_file == "kernel.py" && carries_setup(kernel, cfg.contract)) cfg.problem = k_problem_file;

  std::error_code ec;
  fs::path parent = fs::absolute(req.dir.value_or(default_parent()), ec);
  if (!fs::is_directory(parent, ec)) {
    throw Error("workspace directory " + parent.string() + " does not exist; create it or pass --dir",
                ExitCode::not_writable);
  }
  if (::access(parent.c_str(), W_OK | X_OK) != 0) {
    throw Error("workspace directory " + parent.string() + " is not writable; pass --dir DIR",
                ExitCode::not_writable);
  }
  fs::path target = parent / ("kernel_opt_" + req.name);
  bool exists = fs::exists(fs::symlink_status(target, ec));
  if (exists && !req.force) {
    throw Error("workspace " + target.string() +
                    " already exists; pass --force to replace it (the old one is kept aside, "
                    "never deleted) or choose another name",
                ExitCode::workspace_exists);
  }

  std::string template_text = read_file(data_file("templates/README.md"));
  sweep_stale_temp_dirs(parent);
  fs::path tmp = make_temp_dir(parent, ".kernel_opt_" + req.name + ".tmp-" + std::to_string(::getpid()) + "-");
  InitResult result;
  try {
    // Plain writes suffice inside `tmp`: nothing is visible until the rename below.
    for (const char* d : {"memory", "plans", "profiles"}) {
      fs::create_directories(tmp / d);
      write_file(tmp / d / ".gitkeep", "");
    }
    write_file(tmp / cfg.kernel_file, kernel);
    if (reference) write_file(tmp / *cfg.reference, *reference);
    if (cfg.problem) write_file(tmp / *cfg.problem, problem_file_text(kernel));
    // A SOL-ExecBench definition's workloads live beside it and are part of the problem.
    if (req.reference && req.reference->extension() == ".json" &&
        fs::is_regular_file(req.reference->parent_path() / "workload.jsonl", ec)) {
      write_file(tmp / "workload.jsonl",
                 readable_or_throw(req.reference->parent_path() / "workload.jsonl", "workload file"));
    }
    write_file(tmp / ".gitignore", k_gitignore);
    create_stamp_key(tmp);  // before any kernel of the workspace runs (core/stamp.hpp's key rule)
    write_file(tmp / "kgo.json", nlohmann::json(cfg).dump(2) + "\n");
    std::map<std::string, std::string> vars = {
        {"name", cfg.name},         {"platform", cfg.platform},
        {"platform_input", cfg.platform_input},
        {"arch", cfg.arch},         {"framework", cfg.framework},
        {"dtype", cfg.dtype},       {"shapes", shapes_text(cfg)},
        {"kernel_file", cfg.kernel_file},
        {"kernel_source", req.kernel.string()},
        {"reference", cfg.reference.value_or("")},
        {"wiki_path", cfg.wiki_path},
        {"workspace", target.string()},
        {"notes", cfg.notes.empty() ? "none" : cfg.notes},
        {"max_iterations", std::to_string(cfg.max_iterations)},
        {"created_at", cfg.created_at}};
    write_file(tmp / "README.md", render_template(template_text, vars));
    GitRepo repo = GitRepo::init(tmp);
    repo.hold_objects_in_memory();
    repo.add_all();
    result.commit = repo.commit("init: kgo workspace " + cfg.name + " (" + cfg.platform + ", " +
                                cfg.framework + ")");
    repo.write_held_objects();
    ::chmod(tmp.c_str(), 0755);
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
  std::string stamp = cfg.created_at.substr(0, 19);
  std::replace(stamp.begin(), stamp.end(), ':', '-');
  result.previous_moved_to = place_workspace(tmp, target, exists, stamp);
  result.workspace = target;
  result.config = cfg;
  return result;
}

}  // namespace kgo::core
