#pragma once
// The regeneration rules of `kgo ops` as pure functions of a variant's recorded attempts
// (logs/ops_state.json) and its file's hash: whether to check it now, and what its status is.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace kgo::harness {

// `--retry <op>/<variant>`, validated (the variant is one of op_variants()).
struct RetryTarget {
  std::string op, variant;
};
// nullopt without --retry; throws Error(usage) for a malformed one. The op is canonicalized.
std::optional<RetryTarget> parse_retry(const std::optional<std::string>& retry);

// How this run treats a variant: a plain run, a --retry of another variant, or the --retry of this one.
enum class RetryRole { plain, other, retried };

// Whether to check the variant now. A variant is checked when its contents changed since its last
// attempt (or it has none), in a plain run or as the retried one, while retries are left after a failed
// attempt. Throws Error(usage) for a retry that has nothing to retry or is unchanged, and
// Error(failure) for a retry whose retries are used up. `attempts` is the recorded array,
// oldest first; `label` ("softmax/v2_tiling") and `file` name it in those errors.
bool should_check(const nlohmann::json& attempts, const std::string& sha, RetryRole role, int max_retries,
                  const std::string& label, const std::string& file);

struct VariantStatus {
  std::string status;              // PASS FAIL ... UNCHECKED GAVE_UP
  std::string message;
  std::optional<double> rel_err;
  int retries_left = 0;
};

// The variant's status after this run from its attempts (the newest last) and the file's hash now.
VariantStatus variant_status(const nlohmann::json& attempts, const std::string& sha, int max_retries,
                             const std::string& op);

}  // namespace kgo::harness
