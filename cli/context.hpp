#pragma once
// State shared by every command: global options and the two renderers (text, --json).
#include <filesystem>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace kgo::cli {

struct Context {
  bool json = false;                                  // --json: machine-readable stdout
  std::optional<std::filesystem::path> workspace;     // --workspace DIR
  std::optional<std::filesystem::path> wiki;          // --wiki DIR
  int exit_code = 0;                                  // a command's non-error exit status
};

// Notes on stderr, once, the interrupted operation this process finished (core::last_recovery).
void announce_recovery();

// `j` with a "recovered" member (schemas/cli/recovered.schema.json) when this process finished an
// interrupted operation; every --json object, errors included, carries it.
nlohmann::json with_recovery(const nlohmann::json& j);

// Prints `j` (with --json, plus "recovered") or `text` (otherwise) to stdout.
void emit(const Context& ctx, const nlohmann::json& j, const std::string& text);

// Resolved workspace directory for commands that need one (throws no_workspace); first finishes
// an operation a killed kgo left half done, noting it on stderr.
std::filesystem::path workspace_dir(const Context& ctx);

// Throws Error(usage) naming the first word of argv when it is not a command of `app`.
void require_known_command(const CLI::App& app, int argc, char** argv);

// Registers every command on `app`, in help order (cli/commands.cpp).
void register_all(CLI::App& app, Context& ctx);

}  // namespace kgo::cli
