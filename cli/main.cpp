// kgo entry point: builds the command tree, runs it, maps errors to exit codes.
#include <iostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/context.hpp"
#include "core/error.hpp"
#include "core/resources.hpp"

int main(int argc, char** argv) {
  kgo::core::set_executable_path(argv[0]);
  CLI::App app{"kgo: a hardware-spec-gated workspace manager for GPU kernel optimization"};
  app.set_version_flag("--version", kgo::core::kgo_version());
  app.require_subcommand(1);
  app.fallthrough();
  kgo::cli::Context ctx;
  app.add_flag("--json", ctx.json, "Print machine-readable JSON on stdout");
  kgo::cli::register_all(app, ctx);
  auto fail = [&](const std::string& prefix, const std::string& msg, int code) {
    kgo::cli::announce_recovery();
    if (!ctx.json) std::cerr << "kgo: " << prefix << msg << "\n";  // --json: the JSON answer is the one error stream
    if (ctx.json) {
      std::cout << kgo::cli::with_recovery({{"error", msg}, {"exit_code", code}}).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    }
    return code;
  };
  // --json may follow the words CLI11 failed on, so a usage error looks for it in argv.
  for (int i = 1; i < argc; ++i) ctx.json = ctx.json || std::string(argv[i]) == "--json";
  try {
    kgo::cli::require_known_command(app, argc, argv);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (!ctx.json || e.get_exit_code() == 0) {
      int rc = app.exit(e);
      return rc == 0 ? 0 : static_cast<int>(kgo::ExitCode::usage);
    }
    return fail("usage: ", std::string(e.what()) + " (see `kgo " + "--help`)", static_cast<int>(kgo::ExitCode::usage));
  } catch (const kgo::Error& e) {
    return fail("error: ", e.what(), e.exit_code());
  } catch (const std::exception& e) {
    return fail("internal error: ", e.what(), static_cast<int>(kgo::ExitCode::internal));
  }
  return ctx.exit_code;
}
