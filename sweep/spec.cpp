#include "sweep/spec.hpp"

#include <chrono>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/json_schema.hpp"
#include "core/process.hpp"
#include "core/strings.hpp"
#include "core/resources.hpp"
#include "core/workspace.hpp"
#include "harness/python.hpp"
#include "sweep/step_args.hpp"

namespace kgo::sweep {

namespace {

std::vector<std::string> strings(const nlohmann::json& spec, const char* key) {
  return spec.contains(key) ? spec[key].get<std::vector<std::string>>() : std::vector<std::string>{};
}

fs::path existing(const fs::path& base, const std::string& p, const std::string& what) {
  fs::path full = fs::weakly_canonical(base / p);
  if (!fs::exists(full)) {
    throw Error(fmt::format("sweep spec: {} '{}' not found (looked at {}); paths are relative to the spec file",
                            what, p, full.string()), ExitCode::usage);
  }
  return full;
}

// One target of the spec before the matrix is applied.
struct Target {
  Job base;
  bool per_platform = false;
};

std::vector<Target> targets(const nlohmann::json& spec, const fs::path& base) {
  std::vector<Target> out;
  for (const auto& w : strings(spec, "workspaces")) {
    Target t;
    t.base.workspace = existing(base, w, "workspace");
    if (!fs::exists(*t.base.workspace / "kgo.json")) {
      throw Error(fmt::format("sweep spec: '{}' is not a kgo workspace (no kgo.json); list it under "
                              "\"kernels\" with its reference instead", w), ExitCode::usage);
    }
    t.base.name = t.base.workspace->filename().string();
    out.push_back(t);
  }
  for (const auto& k : spec.value("kernels", nlohmann::json::array())) {
    Target t;
    t.per_platform = true;
    t.base.kernel = existing(base, k.at("kernel").get<std::string>(), "kernel");
    if (k.contains("reference")) t.base.reference = existing(base, k["reference"].get<std::string>(), "reference");
    t.base.name = k.at("name").get<std::string>();
    t.base.framework = k.value("framework", "");
    out.push_back(t);
  }
  return out;
}

// TOML through the harness Python's standard library (tomllib, Python 3.11+): no TOML dependency in kgo.
nlohmann::json toml_to_json(const fs::path& file) {
  auto py = harness::locate_python(std::nullopt);
  static const char* prog =
      "import json, sys\n"
      "try:\n    import tomllib\nexcept ImportError:\n    sys.exit('TOML needs Python 3.11 or newer (tomllib)')\n"
      "try:\n    print(json.dumps(tomllib.load(open(sys.argv[1], 'rb'))))\n"
      "except tomllib.TOMLDecodeError as e:\n    sys.exit(str(e))\n";
  core::ProcessOptions po;
  po.timeout = std::chrono::seconds(30);
  auto r = core::run_process({py.resolved.string(), "-c", prog, file.string()}, po);
  if (r.timed_out || r.signaled || r.exit_code != 0) {
    throw Error(fmt::format("sweep spec '{}' is not valid TOML: {} (write it as JSON, or fix the line named)",
                            file.string(), trim(r.err)), ExitCode::usage);
  }
  return nlohmann::json::parse(r.out, nullptr, false);
}

}  // namespace

std::string Job::label() const {
  std::string l = name;
  for (const auto* part : {&platform, &shape, &dtype, &step}) {
    if (!part->empty()) l += "/" + *part;
  }
  return l;
}

fs::path Sweep::result_file(int id) const { return results_dir() / fmt::format("{}.json", id); }
fs::path Sweep::job_dir(int id) const { return dir / "jobs" / std::to_string(id); }

Sweep expand_spec(const fs::path& spec_file, const fs::path& dir) {
  auto text = core::try_read_file(spec_file);
  if (!text) throw Error("sweep spec '" + spec_file.string() + "' cannot be read", ExitCode::usage);
  nlohmann::json spec = spec_file.extension() == ".toml" ? toml_to_json(spec_file) : nlohmann::json::parse(*text, nullptr, false);
  if (spec.is_discarded()) {
    throw Error("sweep spec '" + spec_file.string() + "' is not valid JSON (name a TOML spec *.toml)",
                ExitCode::usage);
  }
  core::JsonSchema::load(core::data_file("schemas/sweep/spec.schema.json"))
      .validate_or_throw(spec, "sweep spec '" + spec_file.string() + "'");
  fs::path base = fs::absolute(spec_file).parent_path();
  Sweep s;
  s.dir = fs::absolute(dir).lexically_normal();
  s.spec = spec;
  s.spec_sha256 = core::sha256_hex(spec.dump());
  s.name = spec.at("name").get<std::string>();
  s.timeout_s = spec.value("timeout_s", s.timeout_s);
  s.retries = spec.value("retries", s.retries);
  std::vector<std::string> platforms = strings(spec, "platforms");
  std::vector<std::string> shapes = strings(spec, "shapes"), dtypes = strings(spec, "dtypes");
  if (shapes.empty()) shapes.push_back("");
  if (dtypes.empty()) dtypes.push_back("");
  for (const auto& shape : shapes) {
    if (!shape.empty()) core::parse_shape(shape);
  }
  if (spec.contains("step_args")) {
    for (const auto& [step, args] : spec["step_args"].items()) screen_step_args(step, args.get<std::vector<std::string>>());
  }
  auto tgts = targets(spec, base);
  if (tgts.empty()) throw Error("sweep spec: list at least one of \"workspaces\" or \"kernels\"", ExitCode::usage);
  for (auto& t : tgts) {
    if (t.per_platform && platforms.empty()) {
      throw Error(fmt::format("sweep spec: kernel '{}' needs \"platforms\" (kgo init --platform)", t.base.name),
                  ExitCode::usage);
    }
    std::vector<std::string> plats = t.per_platform ? platforms : std::vector<std::string>{""};
    for (const auto& p : plats)
      for (const auto& shape : shapes)
        for (const auto& dtype : dtypes)
          for (const auto& step : spec.at("steps")) {
            Job j = t.base;
            j.id = static_cast<int>(s.jobs.size());
            j.platform = p;
            j.shape = shape;
            j.dtype = dtype;
            j.step = step.get<std::string>();
            j.device = spec.value("device", "auto");
            if (spec.contains("step_args") && spec["step_args"].contains(j.step)) {
              j.args = spec["step_args"][j.step].get<std::vector<std::string>>();
            }
            s.jobs.push_back(j);
          }
  }
  return s;
}

nlohmann::json to_json(const Job& j) {
  auto path = [](const std::optional<fs::path>& p) { return p ? nlohmann::json(p->string()) : nlohmann::json(); };
  return {{"id", j.id},         {"label", j.label()},   {"name", j.name},
          {"workspace", path(j.workspace)}, {"kernel", path(j.kernel)}, {"reference", path(j.reference)},
          {"framework", j.framework}, {"platform", j.platform}, {"shape", j.shape}, {"dtype", j.dtype},
          {"step", j.step},     {"device", j.device},   {"args", j.args}};
}

namespace {

Job job_from_json(const nlohmann::json& v) {
  auto path = [&](const char* k) {
    return v.at(k).is_null() ? std::optional<fs::path>() : std::optional<fs::path>(v.at(k).get<std::string>());
  };
  Job j;
  j.id = v.at("id");
  j.name = v.at("name");
  j.workspace = path("workspace");
  j.kernel = path("kernel");
  j.reference = path("reference");
  j.framework = v.at("framework");
  j.platform = v.at("platform");
  j.shape = v.at("shape");
  j.dtype = v.at("dtype");
  j.step = v.at("step");
  j.device = v.at("device");
  j.args = v.at("args").get<std::vector<std::string>>();
  return j;
}

nlohmann::json plan_json(const Sweep& s) {
  nlohmann::json jobs = nlohmann::json::array();
  for (const auto& j : s.jobs) jobs.push_back(to_json(j));
  return {{"schema_version", 1}, {"name", s.name},       {"spec_sha256", s.spec_sha256}, {"spec", s.spec},
          {"timeout_s", s.timeout_s}, {"retries", s.retries}, {"jobs", jobs}};
}

}  // namespace

void save_or_match_plan(const Sweep& s) {
  fs::path plan = s.dir / "sweep.json";
  if (fs::exists(plan)) {
    Sweep old = load_plan(s.dir);
    if (old.spec_sha256 != s.spec_sha256) {
      throw Error(fmt::format("sweep folder {} holds another sweep ('{}', a different spec); give this one its "
                              "own --dir, or restore the spec it was started with to resume it",
                              s.dir.string(), old.name), ExitCode::usage);
    }
    return;
  }
  fs::create_directories(s.results_dir());
  core::write_file_atomic(plan, plan_json(s).dump(1) + "\n");
}

Sweep load_plan(const fs::path& dir) {
  fs::path plan = dir / "sweep.json";
  auto text = core::try_read_file(plan);
  nlohmann::json v = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
  if (!text || v.is_discarded() || !v.contains("jobs")) {
    throw Error(fmt::format("'{}' holds no sweep (no readable sweep.json); start one with 'kgo sweep run SPEC "
                            "--dir {}'", dir.string(), dir.string()), ExitCode::usage);
  }
  Sweep s;
  s.dir = fs::absolute(dir).lexically_normal();
  s.name = v.at("name");
  s.spec_sha256 = v.at("spec_sha256");
  s.spec = v.at("spec");
  s.timeout_s = v.at("timeout_s");
  s.retries = v.at("retries");
  for (const auto& j : v.at("jobs")) s.jobs.push_back(job_from_json(j));
  return s;
}

std::vector<int> jobs_without_result(const Sweep& s) {
  std::vector<int> out;
  for (const auto& j : s.jobs) {
    if (!fs::exists(s.result_file(j.id))) out.push_back(j.id);
  }
  return out;
}

}  // namespace kgo::sweep
