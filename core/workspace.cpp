#include "core/workspace.hpp"

#include <cstdlib>
#include <ctime>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/ws_paths.hpp"

namespace kgo::core {

void to_json(nlohmann::json& j, const WorkspaceConfig& c) {
  j = nlohmann::json{{"name", c.name},
                     {"platform", c.platform},
                     {"platform_input", c.platform_input},
                     {"arch", c.arch},
                     {"framework", c.framework},
                     {"dtype", c.dtype},
                     {"shapes", c.shapes},
                     {"kernel_file", c.kernel_file},
                     {"reference", c.reference ? nlohmann::json(*c.reference) : nlohmann::json()},
                     {"wiki", {{"path", c.wiki_path},
                               {"fingerprint", c.wiki_fingerprint},
                               {"embedded", c.wiki_embedded}}},
                     {"notes", c.notes},
                     {"max_iterations", c.max_iterations},
                     {"kgo_version", c.kgo_version},
                     {"created_at", c.created_at}};
  if (!c.contract.is_null()) j["contract"] = c.contract;
  if (c.problem) j["problem"] = *c.problem;
}

void from_json(const nlohmann::json& j, WorkspaceConfig& c) {
  j.at("name").get_to(c.name);
  j.at("platform").get_to(c.platform);
  c.platform_input = j.value("platform_input", c.platform);
  j.at("arch").get_to(c.arch);
  j.at("framework").get_to(c.framework);
  j.at("dtype").get_to(c.dtype);
  j.at("shapes").get_to(c.shapes);
  j.at("kernel_file").get_to(c.kernel_file);
  if (j.contains("reference") && j["reference"].is_string()) {
    c.reference = j["reference"].get<std::string>();
  }
  if (j.contains("problem") && j["problem"].is_string()) c.problem = j["problem"].get<std::string>();
  const auto& w = j.at("wiki");
  w.at("path").get_to(c.wiki_path);
  w.at("fingerprint").get_to(c.wiki_fingerprint);
  c.wiki_embedded = w.value("embedded", false);
  c.notes = j.value("notes", "");
  c.max_iterations = j.value("max_iterations", k_default_max_iterations);  // workspaces made before it existed
  j.at("kgo_version").get_to(c.kgo_version);
  j.at("created_at").get_to(c.created_at);
  if (j.contains("contract") && j["contract"].is_object()) c.contract = j["contract"];
}

std::vector<long long> parse_shape(const std::string& text) {
  std::vector<long long> dims;
  size_t pos = 0;
  auto bad = [&] {
    return Error("bad shape '" + text + "': write dimensions separated by 'x', e.g. 4096x4096",
                 ExitCode::usage);
  };
  if (text.empty()) {
    throw bad();
  }
  while (pos <= text.size()) {
    size_t x = text.find_first_of("xX,", pos);
    std::string part = text.substr(pos, x == std::string::npos ? std::string::npos : x - pos);
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos ||
        part.size() > 15) {
      throw bad();
    }
    long long v = std::stoll(part);
    if (v <= 0) {
      throw bad();
    }
    dims.push_back(v);
    if (x == std::string::npos) {
      break;
    }
    pos = x + 1;
  }
  return dims;
}

std::string shape_to_string(const std::vector<long long>& shape) {
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i) {
    out += (i ? "x" : "") + std::to_string(shape[i]);
  }
  return out;
}

WorkspaceConfig load_config(const fs::path& workspace) {
  auto text = try_read_file(workspace / "kgo.json");
  if (!text) {
    throw Error(workspace.string() + " is not a kgo workspace (no kgo.json); run `kgo init` first",
                ExitCode::no_workspace);
  }
  WorkspaceConfig cfg;
  try {
    cfg = nlohmann::json::parse(*text).get<WorkspaceConfig>();
  } catch (const nlohmann::json::exception& e) {
    throw Error((workspace / "kgo.json").string() + " is malformed: " + e.what(),
                ExitCode::no_workspace);
  }
  // The kernel, reference and problem are plain names of regular files inside the workspace.
  std::vector<const std::string*> names = {&cfg.kernel_file};
  if (cfg.reference) names.push_back(&*cfg.reference);
  if (cfg.problem) names.push_back(&*cfg.problem);
  for (const std::string* name : names) {
    if (name->empty()) continue;
    if (!plain_relative_path(*name) || name->find('/') != std::string::npos) {
      throw Error((workspace / "kgo.json").string() + " names the file '" + *name +
                      "', which is not a plain file name inside the workspace; kgo only reads and writes files "
                      "in the workspace folder: restore kgo.json (git checkout -- kgo.json)",
                  ExitCode::unsafe_path);
    }
    check_no_follow(workspace, *name);
  }
  return cfg;
}

void save_config(const fs::path& workspace, const WorkspaceConfig& config) {
  write_file_atomic(workspace / "kgo.json", nlohmann::json(config).dump(2) + "\n");
}

fs::path find_workspace(const std::optional<fs::path>& explicit_dir, const fs::path& start) {
  std::error_code ec;
  if (explicit_dir) {
    fs::path dir = fs::absolute(*explicit_dir, ec);
    if (!fs::exists(dir / "kgo.json", ec)) {
      throw Error(explicit_dir->string() + " is not a kgo workspace (no kgo.json)",
                  ExitCode::no_workspace);
    }
    check_workspace_layout(dir);
    return dir;
  }
  for (fs::path dir = fs::absolute(start, ec); !dir.empty(); dir = dir.parent_path()) {
    if (fs::exists(dir / "kgo.json", ec)) {
      check_workspace_layout(dir);
      return dir;
    }
    if (dir == dir.root_path()) {
      break;
    }
  }
  throw Error("no kgo workspace here: run inside one, or pass --workspace DIR",
              ExitCode::no_workspace);
}

std::string utc_now_iso() {
  std::time_t t = std::time(nullptr);
  if (const char* e = std::getenv("SOURCE_DATE_EPOCH"); e && *e) {  // reproducible runs (and crash tests)
    char* end = nullptr;
    long long v = std::strtoll(e, &end, 10);
    if (end && *end == '\0' && v >= 0) t = static_cast<std::time_t>(v);
  }
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace kgo::core
