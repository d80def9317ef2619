#pragma once
// The option groups several commands share, each declared once here so that a flag means the same
// thing (same name, same help, same default) in every command that takes it.
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/context.hpp"

namespace kgo::harness {
struct BenchSettings;
struct CheckSettings;
struct TargetOptions;
}  // namespace kgo::harness

namespace kgo::cli {

// --workspace DIR into ctx.workspace.
void add_workspace_option(CLI::App* sub, Context& ctx);

// --python PATH: the interpreter that runs the harness.
void add_python_option(CLI::App* sub, std::optional<std::string>& python);

// --device cuda|cpu|auto; `on_cpu` says what --device cpu does for this command.
void add_device_option(CLI::App* sub, std::string& device, const std::string& on_cpu);

// How the harness calls the kernel: --python, --arg and --dtype.
void add_run_options(CLI::App* sub, harness::TargetOptions& t);

// Which function of the kernel and how to read its files: --op, --entry, --contract, --dim, --allow-op.
void add_kernel_options(CLI::App* sub, harness::TargetOptions& t);

// --runs, --precision, --max-runs of a timing.
void add_timing_options(CLI::App* sub, harness::BenchSettings& s);

// --case-timeout and --timeout of a correctness check; `whole` says what --timeout bounds ("in all",
// "per variant").
struct CheckTimeouts {
  std::optional<double> case_s, total_s;
  void require_positive() const;  // throws Error(usage) for a flag <= 0
};
void add_check_timeouts(CLI::App* sub, CheckTimeouts& t, const std::string& whole);

// Writes the timeouts into `s`: the flags where given, else `s`'s defaults, times
// harness::k_cpu_timeout_scale when `device` is "cpu"; require_positive() first.
void apply_check_timeouts(const CheckTimeouts& t, const std::string& device, harness::CheckSettings& s);

}  // namespace kgo::cli
