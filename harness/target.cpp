#include "harness/target.hpp"

#include <algorithm>
#include <map>
#include <sstream>
#include <regex>
#include <set>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/harness_protocol.hpp"
#include "core/problem.hpp"
#include "core/stamp.hpp"
#include "harness/fields.hpp"
#include "harness/problem.hpp"
#include "core/gpu_info.hpp"
#include "roofline/catalog.hpp"
#include "roofline/run.hpp"

namespace kgo::harness {

namespace fs = std::filesystem;

std::string torch_dtype_name(const std::string& dtype) {
  static const std::map<std::string, std::string> k = {
      {"fp64", "float64"},      {"fp32", "float32"},        {"tf32", "float32"},
      {"fp16", "float16"},      {"bf16", "bfloat16"},       {"fp8", "float8_e4m3fn"},
      {"fp8_e4m3", "float8_e4m3fn"}, {"fp8_e5m2", "float8_e5m2"}, {"int8", "int8"},
      {"int16", "int16"},       {"int32", "int32"},         {"int64", "int64"}};
  if (auto it = k.find(dtype); it != k.end()) return it->second;
  for (const auto& [kgo_name, torch_name] : k) {
    if (dtype == torch_name) return dtype;
  }
  if (dtype == "float8_e4m3fn" || dtype == "float8_e5m2" || dtype == "uint8" || dtype == "bool") return dtype;
  std::string names;
  for (const auto& [kgo_name, torch_name] : k) names += (names.empty() ? "" : ", ") + kgo_name;
  throw Error("unknown dtype '" + dtype + "'; use one of " + names + " (or a torch dtype name)",
              ExitCode::usage);
}

std::string resolve_device(const std::string& flag) {
  if (flag == "cuda" || flag == "cpu") return flag;
  if (flag != "auto") {
    throw Error("--device must be cuda, cpu or auto, not '" + flag + "'", ExitCode::usage);
  }
  return core::nvidia_gpu_visible() ? "cuda" : "cpu";
}

nlohmann::json parse_args(const std::vector<std::string>& kv) {
  nlohmann::json args = nlohmann::json::object();
  for (const auto& item : kv) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw Error("--arg '" + item + "' is not of the form name=value", ExitCode::usage);
    }
    args[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return args;
}

std::optional<std::string> workspace_op(const fs::path& workspace) {
  auto text = core::try_read_file(workspace / "roofline.json");
  if (!text) return std::nullopt;
  try {
    nlohmann::json j = nlohmann::json::parse(*text);
    std::string op = jstr(j, "op");
    if (!op.empty() && op != "custom") return op;
  } catch (const nlohmann::json::exception&) {
  }
  return std::nullopt;
}

std::optional<std::string> infer_op(const std::string& kernel_source) {
  static const std::regex def_re(R"(^def\s+triton_([A-Za-z0-9_]+)\s*\()", std::regex::multiline);
  std::set<std::string> names;
  for (auto it = std::sregex_iterator(kernel_source.begin(), kernel_source.end(), def_re);
       it != std::sregex_iterator(); ++it) {
    names.insert((*it)[1]);
  }
  if (names.size() != 1) return std::nullopt;
  return *names.begin();
}

const std::vector<std::string>& contract_names() {
  static const std::vector<std::string> k(protocol::kContracts.begin(), protocol::kContracts.end());
  return k;
}

namespace {

std::pair<std::string, std::string> split_pair(const std::string& item, const std::string& flag) {
  auto eq = item.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
    throw Error(flag + " '" + item + "' is not of the form NAME=VALUE", ExitCode::usage);
  }
  return {item.substr(0, eq), item.substr(eq + 1)};
}

void add_names(nlohmann::json& list, const std::vector<std::string>& items) {
  for (const auto& item : items) {
    std::stringstream ss(item);
    for (std::string name; std::getline(ss, name, ',');) {
      if (!name.empty()) list.push_back(name);
    }
  }
}

}  // namespace

nlohmann::json contract_spec(const ContractFlags& f, const nlohmann::json& base) {
  nlohmann::json j = base.is_object() ? base : nlohmann::json::object();
  if (f.name) {
    const auto& names = contract_names();
    if (std::find(names.begin(), names.end(), *f.name) == names.end()) {
      std::string all;
      for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
      throw Error("unknown contract '" + *f.name + "'; use one of " + all, ExitCode::usage);
    }
    j["name"] = *f.name;
  }
  for (const auto& item : f.dims) {
    auto [name, value] = split_pair(item, "--dim");
    long long v = 0;
    try {
      size_t used = 0;
      v = std::stoll(value, &used);
      if (used != value.size()) v = 0;
    } catch (const std::exception&) {
    }
    if (v < 1) throw Error("--dim " + item + ": the value must be a positive integer", ExitCode::usage);
    j["dims"][name] = v;
  }
  if (!f.inputs.empty()) add_names(j["inputs"] = nlohmann::json::array(), f.inputs);
  if (!f.outputs.empty()) add_names(j["outputs"] = nlohmann::json::array(), f.outputs);
  for (const auto& item : f.sizes) {
    auto [name, expr] = split_pair(item, "--size");
    j["sizes"][name] = expr;
  }
  return j.empty() ? nlohmann::json() : j;
}

Target verdict_target(const fs::path& workspace, const core::WorkspaceConfig& cfg, const TargetOptions& opts) {
  core::verify_problem_unchanged(workspace);
  return workspace_target(workspace, cfg, opts);
}

Target workspace_target(const fs::path& workspace, const core::WorkspaceConfig& cfg,
                        const TargetOptions& opts) {
  core::ensure_stamp_key(workspace);
  Target t;
  t.kernel = workspace / cfg.kernel_file;
  std::error_code ec;
  if (!fs::is_regular_file(t.kernel, ec)) {
    throw Error("the workspace kernel " + t.kernel.string() +
                    " is missing; restore it (git checkout) or re-run kgo init",
                ExitCode::kernel_missing);
  }
  if (cfg.reference) {
    t.reference = workspace / *cfg.reference;
    if (!fs::is_regular_file(*t.reference, ec)) {
      throw Error("the workspace reference " + t.reference->string() + " is missing; restore it",
                  ExitCode::kernel_missing);
    }
  }
  t.problem = workspace_problem(workspace, cfg);
  t.contract = t.kernel.extension() == ".cu" ? "cuda" : "auto";
  t.contract_spec = contract_spec({opts.contract, opts.dims, {}, {}, {}}, cfg.contract);
  if (t.contract_spec.contains("name")) t.contract = t.contract_spec["name"].get<std::string>();
  // A KernelBench problem's shapes are its dims: a catalog op's counts at them would be wrong, so only --op
  // names one (the harness maps Model.forward itself; kgo roofline reads that mapping).
  t.op = opts.op ? opts.op : roofline::is_kernelbench(workspace, cfg) ? std::nullopt : workspace_op(workspace);
  if (!t.op && t.contract == "auto") t.op = infer_op(core::read_file(t.kernel));
  t.entry = opts.entry;
  t.dtype = opts.dtype.value_or(cfg.dtype);
  t.torch_dtype = torch_dtype_name(t.dtype);
  t.dtype_given = opts.dtype.has_value() || t.torch_dtype != "float32";
  t.args = parse_args(opts.args);
  t.allow_ops = opts.allow_ops;
  t.unconfined = opts.unconfined;
  t.memory_limit_mb = opts.memory_limit_mb;
  for (const auto& s : opts.shapes) t.shapes.push_back(core::parse_shape(s));
  if (opts.shapes.empty()) t.shapes = cfg.shapes;
  t.shapes_given = !t.shapes.empty();
  t.python = locate_python(opts.python);
  t.device = resolve_device(opts.device);
  return t;
}

std::string canonical_op(const std::string& name) {
  const roofline::OpInfo* op = roofline::lookup_op(name);
  return op ? op->name : name;
}

nlohmann::json target_request(const Target& t) {
  nlohmann::json shapes = nlohmann::json::array();
  for (const auto& s : t.shapes) shapes.push_back(s);
  nlohmann::json req = {{"kernel", fs::absolute(t.kernel).string()},
          {"reference", t.reference ? nlohmann::json(fs::absolute(*t.reference).string()) : nlohmann::json()},
          {"contract", t.contract},
          {"op", t.op ? nlohmann::json(canonical_op(*t.op)) : nlohmann::json()},
          {"entry", t.entry ? nlohmann::json(*t.entry) : nlohmann::json()},
          {"dtype", t.torch_dtype},
          {"device", t.device},
          {"args", t.args},
          {"shapes", shapes},
          {"shapes_given", t.shapes_given},
          {"dtype_given", t.dtype_given},
          {"allow_ops", t.allow_ops},
          {"unconfined", t.unconfined}};
  if (t.problem) req["problem"] = fs::absolute(*t.problem).string();
  if (t.memory_limit_mb) req["memory_limit_mb"] = *t.memory_limit_mb;
  for (const char* key : {"dims", "inputs", "outputs", "sizes"}) {
    if (t.contract_spec.is_object() && t.contract_spec.contains(key)) req[key] = t.contract_spec[key];
  }
  return req;
}

std::string shapes_text(const std::vector<std::vector<long long>>& shapes) {
  std::string s;
  for (const auto& sh : shapes) s += (s.empty() ? "" : ", ") + core::shape_to_string(sh);
  return s.empty() ? "(harness defaults)" : s;
}

}  // namespace kgo::harness
