// The MCP tool table: each tool is a kgo command line built from its arguments. Input schemas come
// from the same parameter lists that build the command line; output schemas from schemas/cli/.
#include <cctype>
#include <map>
#include <regex>
#include <set>

#include "mcp/mcp.hpp"
#include "core/error.hpp"

namespace kgo::mcp {

namespace {

// One tool argument. An empty flag makes it positional; "array" repeats the flag per item.
struct Param {
  const char* name;
  const char* flag;
  const char* type;  // string, integer, number, boolean, array (of strings), number_array
  const char* help;
  bool required = false;
};

struct Def {
  const char* name;
  const char* description;
  std::vector<std::string> command;  // kgo subcommand words and fixed options
  std::vector<Param> params;
  const char* output;  // schema file under schemas/
  double timeout_s = 120;
  bool long_running = false;
  bool workspace = true;  // takes --workspace
  bool wiki = false;      // takes --wiki
  const char* seed = "";  // run, validate, benchmark: also the seed's code-string arguments
};

// The seed's own arguments of its code-string tools (mcp_seed.cpp builds the commands).
const std::vector<Param>& seed_params(const std::string& kind) {
  static const Param code{"kernel_code", "", "string", "Seed: Triton code with the entry (solve)"};
  static const Param code_alias{"code", "", "string", "Seed: kernel_code"};
  static const Param inputs{"test_input_code", "", "string", "Seed: Python defining args (and kwargs)"};
  static const Param ref{"reference_code", "", "string", "Seed: Python defining reference(...)"};
  static const Param entry{"entry_function", "", "string", "Seed: entry (default solve)"};
  static const std::map<std::string, std::vector<Param>> k = {
      {"run", {code_alias, code, inputs, entry}},
      {"validate", {code, ref, inputs, {"rtol", "", "number", "Relative tolerance"}, {"atol", "", "number", "Absolute tolerance"}, entry}},
      {"benchmark", {code, inputs, ref, {"warmup", "", "integer", "Warm-up calls"}, {"rep", "", "integer", "Timed runs"}, entry}}};
  static const std::vector<Param> none;
  auto it = k.find(kind);
  return it == k.end() ? none : it->second;
}

json param_schema(const Param& p) {
  std::string t = p.type;
  json s;
  if (t == "array") s = {{"type", "array"}, {"items", {{"type", "string"}}}};
  else if (t == "number_array") s = {{"type", "array"}, {"items", {{"type", "number"}}}};
  else s = {{"type", t}};
  s["description"] = p.help;
  return s;
}

json input_schema(const Def& d) {
  json props = json::object();
  json required = json::array();
  for (const Param& p : d.params) {
    props[p.name] = param_schema(p);
    if (p.required) required.push_back(p.name);
  }
  if (d.workspace) {
    props["workspace"] = {{"type", "string"}, {"description", "Workspace (default: the server's)"}};
  }
  for (const Param& p : seed_params(d.seed)) {
    if (!props.contains(p.name)) props[p.name] = param_schema(p);
  }
  json s = {{"type", "object"}, {"properties", props}, {"additionalProperties", false}};
  if (!required.empty()) s["required"] = required;
  return s;
}

std::string scalar(const json& v, const Param& p) {
  std::string t = p.type;
  bool ok = (t == "string" && v.is_string()) || (t == "integer" && v.is_number_integer()) ||
            (t == "number" && v.is_number());
  if (!ok) throw Error(std::string("argument '") + p.name + "' must be a " + t, ExitCode::usage);
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// The seed's argument names of kgo's own arguments: op_name is op, pattern is an op of its kind.
json with_seed_names(const Def& d, json args) {
  if (!args.is_object()) return args;
  static const std::map<std::string, std::string> k_patterns = {
      {"elementwise", "add"}, {"reduction", "sum"}, {"matmul", "matmul"}, {"fused", "softmax"}};
  for (const char* alias : {"op_name", "pattern"}) {
    if (!args.contains(alias)) continue;
    bool takes = false;
    for (const Param& p : d.params) takes = takes || std::string(p.name) == alias;
    if (!takes) continue;
    if (args.contains("op")) throw Error(std::string("pass op or ") + alias + ", not both", ExitCode::usage);
    json v = args[alias];
    args.erase(alias);
    if (std::string(alias) == "pattern") {
      if (!v.is_string() || !k_patterns.count(v.get<std::string>())) {
        throw Error("argument 'pattern' must be elementwise, reduction, matmul or fused (or pass op: any catalog op)",
                    ExitCode::usage);
      }
      v = k_patterns.at(v.get<std::string>());
    }
    args["op"] = v;
  }
  if (!args.contains("op")) {
    for (const Param& p : d.params) {
      if (std::string(p.name) == "op" && !*p.flag) {
        throw Error("argument 'op' (or the seed's " + std::string(d.name == std::string("get_kernel_template") ? "pattern" : "op_name") +
                        ") is required for " + d.name, ExitCode::usage);
      }
    }
  }
  return args;
}

std::vector<std::string> build_argv(const Def& d, const json& args, const ServerOptions& o) {
  if (!args.is_object()) throw Error("arguments must be an object", ExitCode::usage);
  std::set<std::string> known{"workspace"};
  for (const Param& p : d.params) known.insert(p.name);
  for (const auto& [k, v] : args.items()) {
    if (!known.count(k) || (k == "workspace" && !d.workspace)) {
      std::string names;
      for (const Param& p : d.params) names += std::string(names.empty() ? "" : ", ") + p.name;
      throw Error("unknown argument '" + k + "' for " + d.name + "; it takes: " + (names.empty() ? "nothing" : names),
                  ExitCode::usage);
    }
  }
  std::vector<std::string> argv = d.command, positional;
  for (const Param& p : d.params) {
    if (!args.contains(p.name) || args[p.name].is_null()) {
      if (p.required) throw Error(std::string("argument '") + p.name + "' is required for " + d.name, ExitCode::usage);
      continue;
    }
    const json& v = args[p.name];
    std::string t = p.type, flag = p.flag;
    std::vector<std::string> values;
    if (t == "boolean") {
      if (!v.is_boolean()) throw Error(std::string("argument '") + p.name + "' must be true or false", ExitCode::usage);
      if (v.get<bool>()) argv.push_back(flag);
      continue;
    }
    if (t == "array" || t == "number_array") {
      if (!v.is_array()) throw Error(std::string("argument '") + p.name + "' must be an array", ExitCode::usage);
      Param item = p;
      item.type = t == "array" ? "string" : "number";
      for (const json& x : v) values.push_back(scalar(x, item));
    } else {
      values.push_back(scalar(v, p));
    }
    // --flag=value keeps a value that starts with '-' from being read as an option.
    for (const auto& x : values) {
      if (flag.empty()) positional.push_back(x);
      else argv.push_back(flag + "=" + x);
    }
  }
  if (d.workspace) {
    if (args.contains("workspace")) argv.push_back("--workspace=" + args["workspace"].get<std::string>());
    else if (o.workspace) argv.push_back("--workspace=" + o.workspace->string());
  }
  if (d.wiki && o.wiki) argv.push_back("--wiki=" + o.wiki->string());
  if (!positional.empty()) {
    argv.push_back("--");
    argv.insert(argv.end(), positional.begin(), positional.end());
  }
  return argv;
}

const std::vector<Param> k_check_params = {
    {"shape", "--shape", "array", "Shapes such as 4096x4096 (default: the workspace's)"},
    {"trials", "--trials", "integer", "Fresh random inputs per shape"},
    {"device", "--device", "string", "cuda, cpu (Triton interpreter) or auto"},
    {"dtype", "--dtype", "string", "Data type (default: the workspace's)"},
    {"no_edge_shapes", "--no-edge-shapes", "boolean", "Skip the edge shapes"},
    {"detail", "--detail", "boolean", "Every case, every check and the harness result (default: a summary)"},
};
const std::vector<Param> k_bench_params = {
    {"size", "--size", "array", "Sizes to time (default: 256x256 1024x1024 4096x4096)"},
    {"runs", "--runs", "integer", "Timed runs per size (the minimum)"},
    {"device", "--device", "string", "cuda, cpu (Triton interpreter; not recorded) or auto"},
    {"no_compile", "--no-compile", "boolean", "Do not time torch.compile"},
    {"precision", "--precision", "number", "Time until the median's 95% interval is within +-this % (0: exactly runs)"},
    {"detail", "--detail", "boolean", "The harness result: every sample, clocks, method (default: a summary)"},
};

std::vector<Def> definitions() {
  return {
      // The workflow, in order.
      {"next", "The next step of the kgo workflow for this workspace, with the exact command or tool to run.",
       {"next"}, {}, "cli/next.schema.json", 30},
      {"init", "Create a workspace kernel_opt_<name> from a kernel (and reference) file.", {"init"},
       {{"name", "", "string", "Workspace name ([A-Za-z0-9_.-])", true},
        {"kernel", "", "string", "Kernel file to optimize", true},
        {"platform", "--platform", "string", "Target GPU as the wiki names it (H100, H200, ...)", true},
        {"reference", "--reference", "string", "PyTorch reference file"},
        {"dtype", "--dtype", "string", "Data type (fp32, bf16, ...)"},
        {"shape", "--shape", "array", "Problem shapes such as 4096x4096"},
        {"framework", "--framework", "string", "triton|cuda|cutedsl|gluon|flydsl"},
        {"dir", "--dir", "string", "Parent directory"}},
       "cli/init.schema.json", 60, false, false, true},
      {"status", "Configuration, newest commits and records of a workspace (bounded; detail says what was left out).",
       {"status"},
       {{"part", "--part", "array", "Only these parts: config, commits, records, uncommitted"},
        {"limit", "--limit", "integer", "At most N of each list (default 10; 0: all)"},
        {"detail", "--detail", "boolean", "Everything"}},
       "cli/status.schema.json", 30},
      {"wiki_lookup", "One cited hardware spec from the gpu-wiki.", {"wiki", "lookup"},
       {{"platform", "--platform", "string", "Product as the wiki names it", true},
        {"metric", "--metric", "string", "Canonical metric (hbm_bandwidth, bf16_tensor, ...)", true},
        {"measured", "--measured", "boolean", "Measured maxima instead of the datasheet"}},
       "cli/wiki-lookup.schema.json", 30, false, false, true},
      {"wiki_index", "The cited facts the gpu-wiki states, filtered and bounded (detail says what was left out).",
       {"wiki", "index"},
       {{"platform", "--platform", "string", "Only this product (or alias)"},
        {"metric", "--metric", "string", "Only this metric"},
        {"kind", "--kind", "string", "Only datasheet, measured or notes facts"},
        {"limit", "--limit", "integer", "At most N facts (default 10; 0: all)"},
        {"detail", "--detail", "boolean", "Every matching fact"}},
       "cli/wiki-index.schema.json", 30, false, false, true},
      {"spec_add", "Register one cited hardware number after verifying the cited line states it.", {"spec", "add"},
       {{"statement", "", "string", "e.g. \"hbm_bandwidth: 4.8 TB/s <- <gpu-wiki>/path.md:L12\"", true}},
       "cli/spec.schema.json", 30, false, true, true},
      {"spec_auto", "Register every spec the workspace's roofline needs, cited from the wiki.", {"spec", "auto"},
       {{"dtype", "--dtype", "array", "Also register what a roofline for these dtypes needs"}},
       "cli/spec.schema.json", 30, false, true, true},
      {"roofline", "Roofline bound and per-shape targets (Stop Conditions) from the registered specs.", {"roofline"},
       {{"op", "--op", "string", "Catalog op (softmax, matmul, ...)"},
        {"shape", "--shape", "array", "Shapes such as 4096x4096"},
        {"dtype", "--dtype", "string", "Data type"},
        {"flops", "--flops", "string", "FLOPs expression of a custom kernel"},
        {"bytes", "--bytes", "string", "Bytes expression of a custom kernel"},
        {"var", "--var", "array", "NAME=VALUE for --flops/--bytes"},
        {"peak", "--peak", "string", "Compute metric to use as the peak"},
        {"time_us", "--time-us", "number_array", "Measured times to grade (writes nothing)"},
        {"dry_run", "--dry-run", "boolean", "Compute and answer; write and commit nothing"}},
       "cli/roofline.schema.json", 30},
      {"baseline", "Stage 1: check + bench + roofline utilization, memory/v0.json, commit V0.", {"baseline"},
       {{"shape", "--shape", "array", "Check shapes"}, {"size", "--size", "array", "Bench sizes"},
        {"device", "--device", "string", "cuda, cpu (correctness-only) or auto"},
        {"trials", "--trials", "integer", "Check trials per shape"},
        {"detail", "--detail", "boolean", "Every check case and the harness results (default: summaries)"}},
       "cli/baseline.schema.json", 1800, true},
      {"plan_new", "Write plans/v<N>_plan.md and prepare its record, so that the next check is recorded.",
       {"plan", "new"},
       {{"version", "", "string", "v<N> (default: the next)"},
        {"description", "--description", "string", "What this iteration tries; reaches the record and the commit"}},
       "cli/plan.schema.json", 30},
      {"check", "Correctness gate on the workspace kernel; records a stamped verdict.", {"check"}, k_check_params,
       "cli/check.schema.json", 1200, true},
      {"bench", "Time the kernel against PyTorch eager and torch.compile; records performance.", {"bench"},
       k_bench_params, "cli/bench.schema.json", 1200, true},
      {"profile", "Nsight Compute profile and a bottleneck verdict.", {"profile"},
       {{"version", "", "string", "Record version (default: the latest)"},
        {"shape", "--shape", "array", "Shape to profile"}},
       "cli/profile.schema.json", 1800, true},
      {"propose", "Propose the workspace kernel (or `kernel`, copied in): kgo checks it, benches it on a GPU, "
                  "compares it with the last accepted version and the Stop Conditions, then accepts or rejects it.",
       {"propose"},
       {{"kernel", "--kernel", "string", "Kernel file to copy over the workspace kernel first"},
        {"description", "--description", "string", "What this iteration tried (reaches the record and commit)"},
        {"shape", "--shape", "array", "Check shapes (default: the workspace's)"},
        {"device", "--device", "string", "cuda, cpu or auto"},
        {"trials", "--trials", "integer", "Check trials per shape"},
        {"no_edge_shapes", "--no-edge-shapes", "boolean", "Skip the edge shapes"}},
       "cli/propose.schema.json", 2400, true},
      {"reject", "Reject an iteration: restore the last accepted kernel, keep the record as FAIL.",
       {"iterate", "reject"},
       {{"version", "", "string", "v<N>", true}, {"reason", "--reason", "string", "Why", true},
        {"lesson", "--lesson", "string", "What to remember next time"}},
       "cli/iterate.schema.json", 60},
      {"memory_read", "Read iteration records (unmasked ones unless asked).", {"memory", "read"},
       {{"version", "", "string", "v<N> (default: all unmasked)"},
        {"field", "--field", "string", "Dotted field path"},
        {"include_masked", "--include-masked", "boolean", "Read masked records too"},
        {"limit", "--limit", "integer", "Without a version: the newest N records (default 10; 0: all)"}},
       "cli/memory.schema.json", 30},
      {"memory_list", "List the newest records with their verdicts and mask flags.", {"memory", "list"},
       {{"limit", "--limit", "integer", "The newest N records (default 10; 0: all)"}},
       "cli/memory.schema.json", 30},
      {"memory_mask", "Drop records from planning.", {"memory", "mask"},
       {{"versions", "", "array", "v<N> ...", true}}, "cli/memory.schema.json", 30},
      {"memory_unmask", "Bring masked records back into planning.", {"memory", "unmask"},
       {{"versions", "", "array", "v<N> ...", true}}, "cli/memory.schema.json", 30},
      {"restart", "Partial restart: mask about half of the records, reproducibly.", {"restart"},
       {{"seed", "--seed", "integer", "Seed of the choice"}, {"reason", "--reason", "string", "Why"}},
       "cli/restart.schema.json", 60},
      {"audit", "Re-verify every citation and find uncited hardware numbers.", {"audit"},
       {{"history", "--history", "boolean", "Audit every commit too"}}, "cli/audit.schema.json", 300, false, true,
       true},
      {"plan_check", "Check a plan before proposing it: every section filled, one action category, a Hypothesis its "
                     "files bear out, no uncited or unregistered hardware number (propose runs it first too).",
       {"plan", "check"}, {{"version", "", "string", "v<N> (default: the highest-numbered plan)"}},
       "cli/plan.schema.json", 60},
      {"report", "Write and commit report/ (final report, benchmark table, SVG charts) and the README's Final Report.",
       {"report"},
       {{"html", "--html", "boolean", "Also write report/report.html, one self-contained page"},
        {"budget", "--budget", "integer", "Iteration budget; reaching it is reported as the stopping reason"}},
       "cli/report.schema.json", 120},
      {"iterate_verify", "Check that every record parses and agrees with the commit it names, and that no decided "
                         "record was edited.", {"iterate", "verify"}, {}, "cli/iterate.schema.json", 120},
      {"memory_create", "Create record v<N> (default: the next) with defaults.", {"memory", "create"},
       {{"version", "", "string", "v<N> (default: latest + 1)"}}, "cli/memory.schema.json", 30},
      // mcp-for-triton-kernel's tools, under their own names, on kgo's harness.
      {"get_overview", "The kgo workflow and where this workspace stands in it (same as next).", {"next"}, {},
       "cli/next.schema.json", 30},
      {"get_triton_syntax", "Triton syntax reference: one topic (kernel, launch, load_store, masks, reductions, dot, "
                            "autotune, ...), or the list of topics.", {"guide", "triton"},
       {{"topic", "", "string", "Topic; omit it for the list"}}, "cli/guide-triton.schema.json", 30, false, false},
      {"get_torch_op_info", "An op from kgo's catalog: shape convention, FLOPs and bytes formulas, dtypes, the op-mode "
                            "entry and its PyTorch reference.", {"guide", "op"},
       {{"op", "", "string", "Op name or alias (softmax, layernorm, matmul, gelu, ...)"},
        {"op_name", "", "string", "The seed's name of op"}},
       "cli/guide-op.schema.json", 30, false, false},
      {"get_kernel_template", "A Triton kernel template of an op (v1 baseline, v2 tiling, v3 coalesced, v4 optimized), "
                              "or of the seed's pattern: elementwise (add), reduction (sum), matmul, fused (softmax).",
       {"guide", "template"},
       {{"op", "", "string", "Op name or alias"},
        {"pattern", "", "string", "The seed's pattern: elementwise, reduction, matmul or fused"},
        {"variant", "--variant", "string", "v1..v4 or baseline|tiling|coalesced|optimized (default v1)"}},
       "cli/guide-template.schema.json", 30, false, false},
      {"check_gpu_status", "GPU, driver, CUDA, torch, triton, ncu and nvcc of this machine.", {"env"}, {},
       "cli/env.schema.json", 180, true},
      {"run_triton_kernel", "Run the workspace kernel once per shape against its reference (no record); or, with the "
                            "seed's code and test_input_code, that code in a scratch workspace (its own reference).",
       {"check", "--trials=1", "--no-edge-shapes", "--no-record"},
       {{"shape", "--shape", "array", "Shapes (default: the workspace's)"},
        {"device", "--device", "string", "cuda, cpu or auto"}},
       "cli/check.schema.json", 600, true, true, false, "run"},
      {"validate_correctness", "Correctness gate on the workspace kernel (same as check); or, with the seed's "
                               "kernel_code, reference_code and test_input_code, on that code in a scratch workspace.",
       {"check"}, k_check_params, "cli/check.schema.json", 1200, true, true, false, "validate"},
      {"benchmark_kernel", "Time the workspace kernel (same as bench); or, with the seed's kernel_code and "
                           "test_input_code, that code in a scratch workspace (not recorded).",
       {"bench"}, k_bench_params, "cli/bench.schema.json", 1200, true, true, false, "benchmark"},
  };
}

// How kgo's CLI words read over MCP: command words -> tool, --flag -> argument.
struct Vocabulary {
  std::map<std::string, std::string> commands;  // "memory create" -> "memory_create"
  std::map<std::string, Param> flags;           // "--limit" -> its parameter
};

Vocabulary vocabulary() {
  Vocabulary v;
  for (const Def& d : definitions()) {
    std::string words;
    bool plain = true;
    for (const auto& w : d.command) {
      plain = plain && w.rfind("-", 0) != 0;
      words += (words.empty() ? "" : " ") + w;
    }
    if (plain) v.commands.emplace(words, d.name);  // the first tool of a command names it
    for (const Param& p : d.params) {
      if (*p.flag) v.flags.emplace(p.flag, p);
    }
  }
  v.flags.emplace("--workspace", Param{"workspace", "--workspace", "string", ""});
  return v;
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }

// "kgo memory create" at `at` (the longest known command): the tool and the length read.
std::optional<std::pair<std::string, size_t>> command_at(const Vocabulary& v, const std::string& text, size_t at) {
  if (text.compare(at, 4, "kgo ") != 0 || (at > 0 && word_char(text[at - 1]))) return std::nullopt;
  std::optional<std::pair<std::string, size_t>> best;
  std::string words;
  size_t pos = at + 4;
  for (int n = 0; n < 3 && pos < text.size() && std::islower(static_cast<unsigned char>(text[pos])); ++n) {
    size_t end = pos;
    while (end < text.size() && (std::islower(static_cast<unsigned char>(text[end])) || text[end] == '-')) ++end;
    words += (words.empty() ? "" : " ") + text.substr(pos, end - pos);
    if (auto it = v.commands.find(words); it != v.commands.end()) best = {{it->second, end - at}};
    if (end >= text.size() || text[end] != ' ') break;
    pos = end + 1;
  }
  return best;
}

// "--limit 0" / "--limit=0" / "--detail" at `at`: the argument as MCP names it and the length read.
std::optional<std::pair<std::string, size_t>> flag_at(const Vocabulary& v, const std::string& text, size_t at) {
  if (text.compare(at, 2, "--") != 0 || (at > 0 && word_char(text[at - 1]))) return std::nullopt;
  size_t end = at + 2;
  while (end < text.size() && word_char(text[end])) ++end;
  auto it = v.flags.find(text.substr(at, end - at));
  if (it == v.flags.end()) return std::nullopt;
  const Param& p = it->second;
  std::string type = p.type;
  if (type == "boolean") return {{std::string(p.name) + "=true", end - at}};
  static const std::regex scalar_value(R"re(^[ =]("[^"]*"|<[^>]*>|[A-Za-z0-9_.:/+]+))re");
  static const std::regex list_value(R"re(^[ =]("[^"]*"|<[^>]*>|[0-9][0-9x.]*|[A-Z][A-Z_]*)\b)re");
  std::smatch m;
  std::string rest = text.substr(end, 200);
  bool list = type == "array" || type == "number_array";
  if (std::regex_search(rest, m, list ? list_value : scalar_value) || (!rest.empty() && rest[0] == '=' && std::regex_search(rest, m, scalar_value))) {
    return {{std::string(p.name) + "=" + m[1].str(), end - at + static_cast<size_t>(m.length(0))}};
  }
  return {{p.name, end - at}};
}

std::string speak(const Vocabulary& v, const std::string& text) {
  if (text.find("--") == std::string::npos && text.find("kgo ") == std::string::npos) return text;
  std::string out;
  for (size_t i = 0; i < text.size();) {
    auto hit = command_at(v, text, i);
    if (!hit) hit = flag_at(v, text, i);
    if (hit) {
      out += hit->first;
      i += hit->second;
    } else {
      out += text[i++];
    }
  }
  return out;
}

std::vector<Tool> make_tools() {
  std::vector<Tool> out;
  for (const Def& d : definitions()) {
    Tool t;
    t.name = d.name;
    t.description = d.description;
    t.input_schema = input_schema(d);
    t.output_schema = output_schema(d.output, d.command.back().rfind("-", 0) == 0 ? "" : d.command.back());
    t.output_file = d.output;
    t.timeout_s = d.timeout_s;
    t.long_running = d.long_running;
    t.argv = [d](const json& args, const ServerOptions& o) { return build_argv(d, with_seed_names(d, args), o); };
    t.seed_kind = d.seed;
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

const std::vector<Tool>& tools() {
  static const std::vector<Tool> table = make_tools();
  return table;
}

json speak_mcp(const json& doc, const std::string& key) {
  static const Vocabulary v = vocabulary();
  if (doc.is_string()) return key == "command" ? doc : json(speak(v, doc.get<std::string>()));
  if (!doc.is_structured()) return doc;
  json out = doc;
  if (doc.is_object()) {
    for (auto& [k, x] : out.items()) x = speak_mcp(x, k);
  } else {
    for (auto& x : out) x = speak_mcp(x, key);
  }
  return out;
}

const Tool* find_tool(const std::string& name) {
  for (const Tool& t : tools()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

}  // namespace kgo::mcp
