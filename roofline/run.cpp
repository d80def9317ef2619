#include "roofline/run.hpp"

#include <algorithm>
#include <regex>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/git.hpp"
#include "core/json_schema.hpp"
#include "core/txn_ops.hpp"
#include "core/markdown.hpp"
#include "core/memory.hpp"
#include "core/resources.hpp"
#include "core/workspace.hpp"
#include "roofline/cases.hpp"
#include "roofline/catalog.hpp"
#include "roofline/isa_targets.hpp"
#include "roofline/render.hpp"
#include "specs/registry.hpp"

namespace kgo::roofline {

namespace fs = std::filesystem;

namespace {

std::vector<std::vector<long long>> choose_shapes(const RooflineOptions& o, const core::WorkspaceConfig& cfg,
                                                  bool custom) {
  std::vector<std::vector<long long>> shapes;
  for (const std::string& s : o.shapes) shapes.push_back(core::parse_shape(s));
  if (!shapes.empty()) return shapes;
  if (!cfg.shapes.empty()) return cfg.shapes;
  return custom ? shapes : default_shapes();
}

std::vector<std::optional<MeasuredTime>> times_from_options(const RooflineOptions& o, size_t n_cases) {
  std::vector<std::optional<MeasuredTime>> out;
  if (o.time_us.empty()) return out;
  if (o.time_us.size() != n_cases) {
    throw Error(fmt::format("{} --time-us value(s) for {} shape(s); give one --time-us per shape, in the order of "
                            "the shapes",
                            o.time_us.size(), n_cases),
                ExitCode::usage);
  }
  for (double us : o.time_us) {
    if (!(us > 0)) throw Error("--time-us must be a positive number of microseconds", ExitCode::usage);
    out.push_back(MeasuredTime{us * 1e-6, "--time-us"});
  }
  return out;
}

const core::JsonSchema& roofline_schema() {
  static const core::JsonSchema schema = core::JsonSchema::load(core::data_file("schemas/roofline.schema.json"));
  return schema;
}

// True when `<ws>/roofline.json` holds `doc` apart from when and by which kgo it was generated.
bool same_analysis(const fs::path& workspace, nlohmann::json doc) {
  auto text = core::try_read_file(workspace / "roofline.json");
  if (!text) return false;
  nlohmann::json old = nlohmann::json::parse(*text, nullptr, false);
  if (old.is_discarded() || !old.is_object()) return false;
  for (const char* k : {"generated_at", "kgo_version"}) {
    old.erase(k);
    doc.erase(k);
  }
  return old == doc;
}

std::optional<double> positive_number(const nlohmann::json* j) {
  if (j && j->is_number() && j->get<double>() > 0) return j->get<double>();
  return std::nullopt;
}

}  // namespace

std::vector<std::optional<MeasuredTime>> times_from_memory(const fs::path& workspace, const std::string& version,
                                                           const std::vector<Case>& cases) {
  if (!std::regex_match(version, std::regex("v[0-9]{1,6}"))) {
    throw Error("--from-memory wants a record version such as v3, not '" + version + "'", ExitCode::usage);
  }
  std::string rel = "memory/" + version + ".json";
  auto text = core::try_read_file(workspace / rel);
  if (!text) {
    throw Error(fmt::format("{} does not exist in {}; measure the kernel first (kgo bench) or name an existing "
                            "record",
                            rel, workspace.string()),
                ExitCode::record_error);
  }
  nlohmann::json rec = nlohmann::json::parse(*text, nullptr, false);
  if (rec.is_discarded() || !rec.is_object()) {
    throw Error(rel + " is not valid JSON; fix or re-create the record", ExitCode::record_error);
  }
  if (rec.value("masked", false)) {
    throw Error(rel + " is masked; masked records are not evidence (unmask it first)", ExitCode::record_error);
  }
  const nlohmann::json* perf = rec.contains("performance") && rec["performance"].is_object() ? &rec["performance"] : nullptr;
  const nlohmann::json* by_shape =
      perf && perf->contains("latency_us_by_shape") && (*perf)["latency_us_by_shape"].is_object()
          ? &(*perf)["latency_us_by_shape"]
          : nullptr;
  std::optional<double> single = perf && perf->contains("latency_us") ? positive_number(&(*perf)["latency_us"]) : std::nullopt;
  std::vector<std::optional<MeasuredTime>> out(cases.size());
  bool any = false;
  for (size_t i = 0; i < cases.size(); ++i) {
    if (by_shape && !cases[i].shape.empty()) {
      for (const auto& [key, value] : by_shape->items()) {
        std::vector<long long> parsed;
        try {
          parsed = core::parse_shape(key);
        } catch (const Error&) {
          continue;  // a key that is not a shape names nothing we analyze
        }
        auto us = positive_number(&value);
        if (parsed == cases[i].shape && us) {
          out[i] = MeasuredTime{*us * 1e-6, rel + " performance.latency_us_by_shape[" + key + "]"};
        }
      }
    }
    if (!out[i] && single && cases.size() == 1) out[i] = MeasuredTime{*single * 1e-6, rel + " performance.latency_us"};
    any = any || out[i].has_value();
  }
  if (!any) {
    std::string keys;
    if (by_shape) {
      for (const auto& [key, value] : by_shape->items()) keys += (keys.empty() ? "" : ", ") + key;
    }
    throw Error(fmt::format("{} has no latency for the analyzed shape(s){}; record a measurement with kgo bench, "
                            "or pass --shape matching a recorded one{}",
                            rel, single ? " (latency_us applies only when one shape is analyzed)" : "",
                            keys.empty() ? "" : " (recorded: " + keys + ")"),
                ExitCode::record_error);
  }
  return out;
}

bool is_kernelbench(const fs::path& workspace, const core::WorkspaceConfig& config) {
  if (config.contract.is_object() && config.contract.value("name", "") == "kernelbench") return true;
  auto kernel = core::try_read_file(workspace / config.kernel_file);
  return kernel && kernel->find("class ModelNew") != std::string::npos;
}

// A KernelBench workspace (kernel ModelNew) is counted as the catalog op its newest check mapped Model.forward
// to (correctness.details.roofline, from the harness); a problem that is not one catalog op is refused as custom.
static bool kernelbench_defaults(const fs::path& workspace, const core::WorkspaceConfig& cfg, RooflineOptions& o) {
  if (!is_kernelbench(workspace, cfg)) return false;
  std::vector<int> versions = core::record_versions(workspace);
  for (auto it = versions.rbegin(); it != versions.rend(); ++it) {
    nlohmann::json rec = core::read_record(workspace, *it);
    const nlohmann::json* roof = core::find_path(rec, "correctness.details.roofline");
    if (!roof || !roof->is_object()) continue;
    if (!roof->contains("op") || !(*roof)["op"].is_string()) {
      throw Error(roof->value("message", "custom: this problem is not in kgo's op catalog; give --flops EXPR "
                                         "--bytes EXPR to kgo roofline"),
                  ExitCode::usage);
    }
    o.op = (*roof)["op"].get<std::string>();
    if (!o.shapes.empty()) return true;  // --shape given: catalog shapes already
    for (const auto& s : roof->value("shapes", nlohmann::json::array())) {
      std::string label = core::shape_to_string(s.value("op_shape", std::vector<long long>{}));
      if (std::find(o.shapes.begin(), o.shapes.end(), label) == o.shapes.end()) {
        o.shapes.push_back(label);
      }
    }
    return true;
  }
  throw Error("this KernelBench workspace has no check yet, so kgo does not know whether Model.forward is one "
              "catalog op: run kgo check (it maps the problem or says it is custom), or give --flops EXPR "
              "--bytes EXPR to kgo roofline",
              ExitCode::usage);
}

// Without --op or --flops/--bytes, the workspace's committed analysis says what to analyze (its op or
// custom expressions, shapes and dtype); failing that, a workspace named after a catalog op uses it.
RooflineOptions with_workspace_defaults(const fs::path& workspace, const core::WorkspaceConfig& cfg,
                                        RooflineOptions o) {
  if (o.op || o.flops_expr || o.bytes_expr) return o;
  auto text = core::try_read_file(workspace / "roofline.json");
  nlohmann::json prev = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
  if (prev.is_object() && prev.value("op", "") != "") {
    const auto& custom = prev.contains("custom") ? prev["custom"] : nlohmann::json();
    if (prev["op"] == "custom" && custom.is_object()) {
      o.flops_expr = custom.value("flops", "");
      o.bytes_expr = custom.value("bytes", "");
      if (o.vars.empty() && custom.contains("vars")) {
        for (const auto& [k, v] : custom["vars"].items()) o.vars.push_back(k + "=" + (v.is_string() ? v.get<std::string>() : v.dump()));
      }
    } else {
      o.op = prev["op"].get<std::string>();
    }
    if (o.shapes.empty() && prev.contains("shapes")) {
      for (const auto& s : prev["shapes"]) {
        auto shape = s.value("shape", std::vector<long long>{});
        if (!shape.empty()) o.shapes.push_back(core::shape_to_string(shape));
      }
    }
    if (!o.dtype && prev.contains("dtype")) o.dtype = prev["dtype"].get<std::string>();
    return o;
  }
  if (kernelbench_defaults(workspace, cfg, o)) return o;
  if (lookup_op(cfg.name)) o.op = cfg.name;
  return o;
}

RooflineRun run_roofline(const fs::path& workspace, const RooflineOptions& given) {
  if (!given.time_us.empty() && given.from_memory) {
    throw Error("give either --time-us or --from-memory, not both", ExitCode::usage);
  }
  core::WorkspaceConfig cfg = core::load_config(workspace);
  const RooflineOptions o = with_workspace_defaults(workspace, cfg, given);
  bool custom = o.flops_expr || o.bytes_expr;
  CaseRequest req;
  req.op = o.op;
  req.flops_expr = o.flops_expr;
  req.bytes_expr = o.bytes_expr;
  req.vars = o.vars;
  req.shapes = choose_shapes(o, cfg, custom);
  req.dtype = o.dtype.value_or(cfg.dtype);
  req.peak_metric = o.peak_metric;
  CaseSet set = build_cases(req);

  specs::Registry reg = specs::load_registry(workspace);
  if (reg.platform.empty()) reg.platform = cfg.platform;
  Inputs inputs = select_inputs(reg, set.compute_metric, o.grid.has_value());

  std::vector<std::optional<MeasuredTime>> times =
      o.from_memory ? times_from_memory(workspace, *o.from_memory, set.cases) : times_from_options(o, set.cases.size());

  RooflineRun run;
  run.workspace = workspace;
  run.arch = cfg.arch;
  run.analysis = analyze(set.op, set.dtype, set.matmul_like, std::move(set.cases), inputs, o.fraction, o.grid, times);
  const Analysis& a = run.analysis;

  run.document = to_json(a);
  run.document["schema_version"] = 1;
  run.document["kgo_version"] = core::kgo_version();
  run.document["generated_at"] = core::utc_now_iso();
  run.document["arch"] = cfg.arch;
  run.document["custom"] = custom ? nlohmann::json{{"flops", set.flops_expr}, {"bytes", set.bytes_expr}, {"vars", set.vars}}
                                  : nlohmann::json(nullptr);
  nlohmann::json isa = nlohmann::json::array();
  for (const IsaTarget* t : targets_for(cfg.arch, a.matmul_like || custom)) isa.push_back(t->id);
  run.document["isa_targets"] = isa;

  if (times.empty() && !o.dry_run) {
    core::LockedWorkspace lock(workspace);
    std::string old_readme = core::try_read_file(workspace / "README.md").value_or("");
    std::string readme = core::replace_section(old_readme, "Roofline Analysis", roofline_section(a));
    readme = core::replace_section(readme, "Stop Conditions", stop_conditions_section(a));
    readme = core::replace_section(readme, "ISA Optimization Targets", isa_section(cfg.arch, a));
    if (readme == old_readme && same_analysis(workspace, run.document)) {
      run.up_to_date = true;  // a re-run with the same inputs: no rewrite, no timestamp-only commit
      return run;
    }
    roofline_schema().validate_or_throw(run.document, "roofline.json");
    std::string bound = a.shapes.empty() ? "" : ", " + to_string(a.seed_bound) + "-bound";
    std::string message = fmt::format("roofline: {} {} ({} shape{}{})", a.op, a.dtype, a.shapes.size(),
                                      a.shapes.size() == 1 ? "" : "s", bound);
    run.commit = core::commit_files(workspace, "roofline", message,
                                    {{"roofline.json", run.document.dump(2) + "\n"}, {"README.md", readme}});
    run.wrote = true;
  }
  return run;
}

}  // namespace kgo::roofline
