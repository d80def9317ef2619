#pragma once
// `kgo mcp`: a Model Context Protocol server on stdio. Every tool runs kgo itself (or another
// program) as a child process with a timeout; nothing of a tool runs in the server process.
// Split: server.cpp (the JSON-RPC loop), methods.cpp (handshake, tools/list, resources), tools.cpp
// (the tool table, MCP wording), schema.cpp (output schemas), seed.cpp (the seed's code-string
// tools), child.cpp (child processes, progress, cancellation).
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kgo::mcp {

using nlohmann::json;

struct ServerOptions {
  std::optional<std::filesystem::path> workspace;  // default workspace for workspace tools
  std::optional<std::filesystem::path> wiki;       // passed on as --wiki
  double timeout_scale = 1;                        // multiplies every tool's timeout
  std::string seed_platform = "H100";              // platform of the seed tools' scratch workspaces
};

// The kgo commands that judge a seed tool's code strings, run one after the other in `scratch`.
struct SeedChain {
  std::filesystem::path scratch;
  std::vector<std::vector<std::string>> steps;
};

// One tool: how its arguments become a kgo command line, and what it answers.
struct Tool {
  std::string name;
  std::string description;
  json input_schema;                 // JSON Schema of `arguments`
  json output_schema;                // self-contained JSON Schema of structuredContent (output_schema())
  std::string output_file;           // its file under schemas/ (the resource kgo://schemas/<file>)
  double timeout_s = 60;             // wall-clock limit of the child (x timeout_scale)
  bool long_running = false;         // sends notifications/progress while it runs
  // kgo arguments (without the executable and --json); throws kgo::Error(usage) on bad input.
  std::function<std::vector<std::string>(const json& args, const ServerOptions&)> argv;
  std::string seed_kind;             // run, validate, benchmark: also takes the seed's code strings
};

// Whether a call passes the seed's code strings (code, kernel_code, test_input_code).
bool seed_call(const json& args);
// Writes the code strings into a fresh scratch directory and names the kgo init and check/bench
// that judge them (mcp_seed.cpp); Error(usage) for a bad argument.
SeedChain seed_chain(const std::string& kind, const json& args, const ServerOptions& o);

// One option a kgo command declares, as its parser has it (cli/mcp.cpp reads them off the command tree).
struct CommandOption {
  std::string name;   // the MCP argument: the long flag without dashes, '-' -> '_'; or the positional's name
  std::string flag;   // "--limit"; empty for a positional
  std::string type;   // string, integer, number, boolean, array (of strings), number_array
  std::string help;
  bool required = false;
};
// Command words ("memory read") -> the options that command declares.
using CommandOptions = std::map<std::string, std::vector<CommandOption>>;

// What the tool table declares of one tool: the command words it runs and the options of that command it takes
// ("--limit", or a positional's name).
struct ToolArguments {
  std::string tool, command;
  std::vector<std::string> args;
};
std::vector<ToolArguments> tool_arguments();

// Every tool's arguments are options of its command: the tool table names them, `commands` gives their
// types, help and required-ness. Error(internal) naming the tool when its command lacks one.
std::vector<Tool> build_tools(const CommandOptions& commands);
// The commands' options that tools() is built from; set once before the server starts.
void set_command_options(CommandOptions commands);
// Every tool, in tools/list order.
const std::vector<Tool>& tools();
const Tool* find_tool(const std::string& name);

// `doc` with kgo's CLI words in its strings as an MCP client calls them: `kgo memory create` ->
// memory_create, `--limit 0` -> limit=0, `--detail` -> detail=true. Strings under a key named
// "command" (the CLI command itself, as `next` gives it beside its tool) are kept.
json speak_mcp(const json& doc, const std::string& key = "");

// The schema file schemas/<relative> with every external $ref inlined under $defs, and a root
// "type": "object" (MCP requires it of an outputSchema).
json bundled_schema(const std::string& relative);

// A tool's outputSchema: the top level of bundled_schema(relative) (fields, types, required), or
// kgo's error answer {error, exit_code}, so that a refusal is valid against it too.
// `verb`: the command's last word; where the schema has one alternative per verb, only its own.
json output_schema(const std::string& relative, const std::string& verb = "");

// A running child process: kgo's own executable with `argv`, in a new process group.
struct Child {
  int pid = -1;
  int out_fd = -1, err_fd = -1;
  std::string out, err;
  std::chrono::steady_clock::time_point start, deadline;
};
Child spawn_child(const std::vector<std::string>& argv);
// Reads what is available on `fd` into `sink`; false at end of file (the fd is then closed).
bool drain(int& fd, std::string& sink);
// Stops and kills `pid` and every process descending from it (by /proc parentage and by group).
void kill_tree(int pid);
// Reaps the child; its exit code, or 128 + signal.
int reap(int pid);

// Serves MCP on stdin/stdout until stdin closes; returns the process exit code.
int serve(const ServerOptions& opts);

}  // namespace kgo::mcp
