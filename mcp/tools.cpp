// The MCP tool table: each tool is a kgo command line built from its arguments. Input schemas come
// from the same parameter lists that build the command line; output schemas from schemas/cli/.
#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>

#include "mcp/mcp.hpp"
#include "core/error.hpp"

namespace kgo::mcp {

namespace {

// One tool argument, resolved from its command's declared option (or one of the seed's own arguments).
// An empty flag makes it positional; "array" repeats the flag per item.
struct Param {
  std::string name;
  std::string flag;
  std::string type;  // string, integer, number, boolean, array (of strings), number_array
  std::string help;
  bool required = false;
};

// One row of the tool table. `args` names options its command declares ("--limit", or a positional's name);
// their types, help and required-ness are the command's own (CommandOption), never typed here.
struct Def {
  const char* name;
  const char* description;
  std::vector<std::string> command;  // kgo subcommand words and fixed options
  std::vector<std::string> args;
  const char* output;  // schema file under schemas/
  double timeout_s = 120;
  bool long_running = false;
  bool workspace = true;  // takes --workspace
  bool wiki = false;      // takes --wiki
  const char* seed = "";  // run, validate, benchmark: also the seed's code-string arguments
};

// A tool row with its arguments resolved against the command's options.
struct Spec {
  Def def;
  std::vector<Param> params;
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

// The seed's names of a kgo argument, taken beside it (with_seed_names turns them into op).
std::vector<Param> alias_params(const std::string& tool) {
  if (tool == "get_torch_op_info") return {{"op_name", "", "string", "The seed's name of op"}};
  if (tool == "get_kernel_template") {
    return {{"pattern", "", "string", "The seed's pattern: elementwise, reduction, matmul or fused"}};
  }
  return {};
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

json input_schema(const Spec& spec) {
  const Def& d = spec.def;
  json props = json::object();
  json required = json::array();
  bool aliased = !alias_params(d.name).empty();  // op may come as the seed's op_name or pattern instead
  for (const Param& p : spec.params) {
    props[p.name] = param_schema(p);
    if (p.required && !(aliased && p.name == "op")) required.push_back(p.name);
  }
  if (d.workspace) {
    props["workspace"] = {{"type", "string"}, {"description", "Workspace folder"}};
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
  if (!ok) throw Error("argument '" + p.name + "' must be a " + t, ExitCode::usage);
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// The seed's argument names of kgo's own arguments: op_name is op, pattern is an op of its kind.
json with_seed_names(const Spec& spec, json args) {
  const Def& d = spec.def;
  if (!args.is_object()) return args;
  static const std::map<std::string, std::string> k_patterns = {
      {"elementwise", "add"}, {"reduction", "sum"}, {"matmul", "matmul"}, {"fused", "softmax"}};
  for (const char* alias : {"op_name", "pattern"}) {
    if (!args.contains(alias)) continue;
    bool takes = false;
    for (const Param& p : spec.params) takes = takes || p.name == alias;
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
    for (const Param& p : spec.params) {
      if (p.name == "op" && p.flag.empty()) {
        throw Error("argument 'op' (or the seed's " + std::string(d.name == std::string("get_kernel_template") ? "pattern" : "op_name") +
                        ") is required for " + d.name, ExitCode::usage);
      }
    }
  }
  return args;
}

std::vector<std::string> build_argv(const Spec& spec, const json& args, const ServerOptions& o) {
  const Def& d = spec.def;
  if (!args.is_object()) throw Error("arguments must be an object", ExitCode::usage);
  std::set<std::string> known{"workspace"};
  for (const Param& p : spec.params) known.insert(p.name);
  for (const auto& [k, v] : args.items()) {
    if (!known.count(k) || (k == "workspace" && !d.workspace)) {
      std::string names;
      for (const Param& p : spec.params) names += (names.empty() ? "" : ", ") + p.name;
      throw Error("unknown argument '" + k + "' for " + d.name + "; it takes: " + (names.empty() ? "nothing" : names),
                  ExitCode::usage);
    }
  }
  std::vector<std::string> argv = d.command, positional;
  for (const Param& p : spec.params) {
    if (!args.contains(p.name) || args[p.name].is_null()) {
      if (p.required) throw Error("argument '" + p.name + "' is required for " + d.name, ExitCode::usage);
      continue;
    }
    const json& v = args[p.name];
    std::string t = p.type, flag = p.flag;
    std::vector<std::string> values;
    if (t == "boolean") {
      if (!v.is_boolean()) throw Error("argument '" + p.name + "' must be true or false", ExitCode::usage);
      if (v.get<bool>()) argv.push_back(flag);
      continue;
    }
    if (t == "array" || t == "number_array") {
      if (!v.is_array()) throw Error("argument '" + p.name + "' must be an array", ExitCode::usage);
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

const std::vector<std::string> k_check_args = {"--shape", "--trials", "--device", "--dtype", "--no-edge-shapes", "--detail"};
const std::vector<std::string> k_bench_args = {"--size", "--runs", "--device", "--no-compile", "--precision", "--detail"};

std::vector<Def> definitions() {
  return {
      // The workflow, in order.
      {"next", "The next step of the kgo workflow for this workspace, with the exact command or tool to run.",
       {"next"}, {}, "cli/next.schema.json", 30},
      {"init", "Create a workspace kernel_opt_<name> from a kernel (and reference) file.", {"init"},
       {"name", "kernel", "--platform", "--reference", "--dtype", "--shape", "--framework", "--dir", "--max-iterations"},
       "cli/init.schema.json", 60, false, false, true},
      {"status", "Configuration, newest commits and records of a workspace (bounded; detail says what was left out).",
       {"status"},
       {"--part", "--limit", "--detail"},
       "cli/status.schema.json", 30},
      {"wiki_lookup", "One cited hardware spec from the gpu-wiki.", {"wiki", "lookup"},
       {"--platform", "--metric", "--measured"},
       "cli/wiki-lookup.schema.json", 30, false, false, true},
      {"wiki_index", "The cited facts the gpu-wiki states, filtered and bounded (detail says what was left out).",
       {"wiki", "index"},
       {"--platform", "--metric", "--kind", "--limit", "--detail"},
       "cli/wiki-index.schema.json", 30, false, false, true},
      {"spec_add", "Register one cited hardware number after verifying the cited line states it.", {"spec", "add"},
       {"statement"},
       "cli/spec.schema.json", 30, false, true, true},
      {"spec_auto", "Register every spec the workspace's roofline needs, cited from the wiki.", {"spec", "auto"},
       {"--dtype"},
       "cli/spec.schema.json", 30, false, true, true},
      {"roofline", "Roofline bound and per-shape targets (Stop Conditions) from the registered specs.", {"roofline"},
       {"--op", "--shape", "--dtype", "--flops", "--bytes", "--var", "--peak", "--time-us", "--dry-run"},
       "cli/roofline.schema.json", 30},
      {"baseline", "Stage 1: check + bench + roofline utilization, memory/v0.json, commit V0.", {"baseline"},
       {"--shape", "--size", "--device", "--trials", "--detail"},
       "cli/baseline.schema.json", 1800, true},
      {"plan_new", "Write plans/v<N>_plan.md and prepare its record, so that the next check is recorded.",
       {"plan", "new"},
       {"version", "--description"},
       "cli/plan.schema.json", 30},
      {"check", "Correctness gate on the workspace kernel; records a stamped verdict.", {"check"}, k_check_args,
       "cli/check.schema.json", 1200, true},
      {"bench", "Time the kernel against PyTorch eager and torch.compile; records performance.", {"bench"},
       k_bench_args, "cli/bench.schema.json", 1200, true},
      {"profile", "Nsight Compute profile and a bottleneck verdict.", {"profile"},
       {"version", "--shape"},
       "cli/profile.schema.json", 1800, true},
      {"propose", "Propose the workspace kernel (or `kernel`, copied in): kgo checks and benches it, compares it "
                  "with the last accepted version and the Stop Conditions, then accepts or rejects it.",
       {"propose"},
       {"--kernel", "--description", "--shape", "--device", "--trials", "--no-edge-shapes"},
       "cli/propose.schema.json", 2400, true},
      {"reject", "Reject an iteration: restore the last accepted kernel, keep the record as FAIL.",
       {"iterate", "reject"},
       {"version", "--reason", "--lesson"},
       "cli/iterate.schema.json", 60},
      {"memory_read", "Read iteration records (unmasked ones unless asked).", {"memory", "read"},
       {"version", "--field", "--include-masked", "--limit"},
       "cli/memory.schema.json", 30},
      {"memory_list", "List the newest records with their verdicts and mask flags.", {"memory", "list"},
       {"--limit"},
       "cli/memory.schema.json", 30},
      {"memory_mask", "Drop records from planning.", {"memory", "mask"},
       {"versions"}, "cli/memory.schema.json", 30},
      {"memory_unmask", "Bring masked records back into planning.", {"memory", "unmask"},
       {"versions"}, "cli/memory.schema.json", 30},
      {"restart", "Partial restart: mask about half of the records, reproducibly.", {"restart"},
       {"--seed", "--reason"},
       "cli/restart.schema.json", 60},
      {"audit", "Re-verify every citation and find uncited hardware numbers.", {"audit"},
       {"--history"}, "cli/audit.schema.json", 300, false, true,
       true},
      {"plan_check", "Check a plan before proposing it: every section filled, one action category, a Hypothesis its "
                     "files bear out, no uncited or unregistered hardware number (propose runs it too).",
       {"plan", "check"}, {"version"},
       "cli/plan.schema.json", 60},
      {"report", "Write and commit report/ (final report, benchmark table, SVG charts) and the README's Final Report.",
       {"report"},
       {"--html", "--budget"},
       "cli/report.schema.json", 120},
      {"iterate_verify", "Check that every record parses and agrees with the commit it names, and that no decided "
                         "record was edited.", {"iterate", "verify"}, {}, "cli/iterate.schema.json", 120},
      {"memory_create", "Create record v<N> (default: the next) with defaults.", {"memory", "create"},
       {"version"}, "cli/memory.schema.json", 30},
      // mcp-for-triton-kernel's tools, under their own names, on kgo's harness.
      {"get_overview", "The kgo workflow and where this workspace stands in it (same as next).", {"next"}, {},
       "cli/next.schema.json", 30},
      {"get_triton_syntax", "Triton syntax reference: one topic (kernel, launch, load_store, masks, reductions, dot, "
                            "autotune, ...), or the list of topics.", {"guide", "triton"},
       {"topic"}, "cli/guide-triton.schema.json", 30, false, false},
      {"get_torch_op_info", "An op from kgo's catalog: shapes, FLOPs and bytes, dtypes, inputs, PyTorch reference.",
       {"guide", "op"},
       {"op"},
       "cli/guide-op.schema.json", 30, false, false},
      {"get_kernel_template", "A Triton kernel template of an op (v1 baseline to v4 optimized), or of the seed's "
                              "pattern: elementwise (add), reduction (sum), matmul, fused (softmax).",
       {"guide", "template"},
       {"op", "--variant"},
       "cli/guide-template.schema.json", 30, false, false},
      {"check_gpu_status", "This machine's GPU, driver, CUDA, torch, triton, ncu, nvcc.", {"env"}, {},
       "cli/env.schema.json", 180, true},
      {"run_triton_kernel", "Run the workspace kernel once per shape against its reference (no record); or, with the "
                            "seed's code and test_input_code, that code in a scratch workspace.",
       {"check", "--trials=1", "--no-edge-shapes", "--no-record"},
       {"--shape", "--device"},
       "cli/check.schema.json", 600, true, true, false, "run"},
      {"validate_correctness", "Correctness gate on the workspace kernel (same as check); or, with the seed's "
                               "kernel_code, reference_code and test_input_code, on that code in a scratch workspace.",
       {"check"}, k_check_args, "cli/check.schema.json", 1200, true, true, false, "validate"},
      {"benchmark_kernel", "Time the workspace kernel (same as bench); or, with the seed's kernel_code and "
                           "test_input_code, that code in a scratch workspace (not recorded).",
       {"bench"}, k_bench_args, "cli/bench.schema.json", 1200, true, true, false, "benchmark"},
  };
}

// How kgo's CLI words read over MCP: command words -> tool, --flag -> argument.
struct Vocabulary {
  std::map<std::string, std::string> commands;  // "memory create" -> "memory_create"
  std::map<std::string, Param> flags;           // "--limit" -> its parameter
};

Vocabulary vocabulary(const std::vector<Spec>& specs) {
  Vocabulary v;
  for (const Spec& s : specs) {
    const Def& d = s.def;
    std::string words;
    bool plain = true;
    for (const auto& w : d.command) {
      plain = plain && w.rfind("-", 0) != 0;
      words += (words.empty() ? "" : " ") + w;
    }
    if (plain) v.commands.emplace(words, d.name);  // the first tool of a command names it
    for (const Param& p : s.params) {
      if (!p.flag.empty()) v.flags.emplace(p.flag, p);
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
  if (type == "boolean") return {{p.name + "=true", end - at}};
  static const std::regex scalar_value(R"re(^[ =]("[^"]*"|<[^>]*>|[A-Za-z0-9_.:/+]+))re");
  static const std::regex list_value(R"re(^[ =]("[^"]*"|<[^>]*>|[0-9][0-9x.]*|[A-Z][A-Z_]*)\b)re");
  std::smatch m;
  std::string rest = text.substr(end, 200);
  bool list = type == "array" || type == "number_array";
  if (std::regex_search(rest, m, list ? list_value : scalar_value) || (!rest.empty() && rest[0] == '=' && std::regex_search(rest, m, scalar_value))) {
    return {{p.name + "=" + m[1].str(), end - at + static_cast<size_t>(m.length(0))}};
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

// The command words of a tool's command line ("memory read"), without its fixed options.
std::string command_words(const Def& d) {
  std::string words;
  for (const auto& w : d.command) {
    if (w.rfind("-", 0) == 0) break;
    words += (words.empty() ? "" : " ") + w;
  }
  return words;
}

// An option's help as an MCP argument's description: what the CLI says about typing it goes ("--json: ", which
// every MCP answer is; "repeatable", which an array says) and so does a closing "(default: ...)", since an agent
// leaves an argument out for its default (it keeps tools/list within its budget).
std::string argument_help(std::string help) {
  if (help.rfind("--json: ", 0) == 0) help.erase(0, 8);
  for (const std::string cut : {"repeatable; ", " (repeatable)"}) {
    for (size_t at = help.find(cut); at != std::string::npos; at = help.find(cut)) help.erase(at, cut.size());
  }
  size_t open = help.rfind(" (default");
  if (open != std::string::npos && !help.empty() && help.back() == ')') help.erase(open);
  size_t last = help.rfind("; default: ");  // "(every sample, clocks; default: a summary)"
  if (last != std::string::npos && help.back() == ')' && help.find_first_of("()", last) == help.size() - 1) {
    help.erase(last, help.size() - 1 - last);
  }
  return help;
}

Spec resolve(const Def& d, const CommandOptions& commands) {
  std::string words = command_words(d);
  auto it = commands.find(words);
  if (it == commands.end()) {
    throw Error(std::string("MCP tool ") + d.name + ": kgo has no command `kgo " + words + "`", ExitCode::internal);
  }
  Spec s{d, {}};
  for (const std::string& arg : d.args) {
    auto o = std::find_if(it->second.begin(), it->second.end(), [&](const CommandOption& c) {
      return c.flag.empty() ? c.name == arg : c.flag == arg;
    });
    if (o == it->second.end()) {
      std::string names;
      for (const auto& c : it->second) names += (names.empty() ? "" : ", ") + (c.flag.empty() ? c.name : c.flag);
      throw Error(std::string("MCP tool ") + d.name + ": `kgo " + words + "` declares no option " + arg +
                      " (it declares: " + (names.empty() ? "none" : names) + ")",
                  ExitCode::internal);
    }
    s.params.push_back({o->name, o->flag, o->type, argument_help(o->help), o->required});
  }
  for (Param& p : alias_params(d.name)) s.params.push_back(std::move(p));
  return s;
}

std::vector<Spec> resolve_all(const CommandOptions& commands) {
  std::vector<Spec> out;
  for (const Def& d : definitions()) out.push_back(resolve(d, commands));
  return out;
}

CommandOptions& command_options() {
  static CommandOptions options;
  return options;
}

const std::vector<Spec>& specs() {
  static const std::vector<Spec> all = [] {
    if (command_options().empty()) {
      throw Error("MCP tools: the commands' options were not set (set_command_options)", ExitCode::internal);
    }
    return resolve_all(command_options());
  }();
  return all;
}

}  // namespace

std::vector<ToolArguments> tool_arguments() {
  std::vector<ToolArguments> out;
  for (const Def& d : definitions()) out.push_back({d.name, command_words(d), d.args});
  return out;
}

void set_command_options(CommandOptions options) { command_options() = std::move(options); }

std::vector<Tool> build_tools(const CommandOptions& commands) {
  std::vector<Tool> out;
  for (const Spec& s : resolve_all(commands)) {
    const Def& d = s.def;
    Tool t;
    t.name = d.name;
    t.description = d.description;
    t.input_schema = input_schema(s);
    t.output_schema = output_schema(d.output, d.command.back().rfind("-", 0) == 0 ? "" : d.command.back());
    t.output_file = d.output;
    t.timeout_s = d.timeout_s;
    t.long_running = d.long_running;
    t.argv = [s](const json& args, const ServerOptions& o) { return build_argv(s, with_seed_names(s, args), o); };
    t.seed_kind = d.seed;
    out.push_back(std::move(t));
  }
  return out;
}

const std::vector<Tool>& tools() {
  static const std::vector<Tool> table = build_tools(command_options());
  return table;
}

json speak_mcp(const json& doc, const std::string& key) {
  static const Vocabulary v = vocabulary(specs());
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
