#pragma once
// One error type for kgo: a user-facing message plus the process exit code.
// Thrown anywhere below cli/, caught once in cli/main.cpp.
#include <stdexcept>
#include <string>

namespace kgo {

// Exit codes are part of kgo's interface (README lists them); never renumber.
enum class ExitCode : int {
  ok = 0,
  failure = 1,            // generic failure (also "check failed", "env not ready")
  target_missed = 2,      // roofline: a measured time misses its target (seed's convention)
  usage = 3,              // bad arguments or option values
  bad_name = 4,           // workspace name rejected
  kernel_missing = 5,     // kernel / reference file missing or unreadable
  workspace_exists = 6,   // init without --force on an existing workspace
  not_writable = 7,       // output directory cannot be written
  no_workspace = 8,       // no kgo workspace found
  locked = 9,             // another kgo process holds the workspace lock
  git_error = 10,         // libgit2 failure
  unknown_platform = 11,  // platform not known to the wiki
  unknown_metric = 12,    // metric name not canonical / not in wiki
  citation_rejected = 13, // a spec citation failed verification
  wiki_error = 14,        // wiki missing or unreadable
  missing_spec = 15,      // a needed spec is not registered
  schema_invalid = 16,    // a JSON document failed its schema
  record_error = 17,      // memory record missing / masked / conflicting
  quality_gate = 18,      // accept refused: no valid PASS stamp
  audit_findings = 19,    // audit found violations
  harness_error = 20,     // python harness failed to run
  plan_invalid = 21,      // plan check failed
  expression_error = 22,  // roofline expression rejected
  no_gpu = 23,            // a GPU (or GPU tool) is required and absent
  unsafe_path = 24,       // a managed workspace path is a link or special file, or a journal/kgo.json entry kgo did not write
  client_config = 25,     // an agent client's config (kgo skill install) is malformed or has a kgo entry kgo did not install
  no_cell = 26,           // no sandbox (namespaces, Landlock) can confine the kernel here; --unconfined proceeds knowingly
  internal = 70,          // bug in kgo
};

class Error : public std::runtime_error {
 public:
  Error(std::string message, ExitCode code = ExitCode::failure)
      : std::runtime_error(std::move(message)), m_code(code) {}
  ExitCode code() const { return m_code; }
  int exit_code() const { return static_cast<int>(m_code); }

 private:
  ExitCode m_code;
};

}  // namespace kgo
