#include "harness/ops_retry.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.hpp"
#include "harness/fields.hpp"
#include "harness/ops.hpp"
#include "harness/target.hpp"

namespace kgo::harness {

std::optional<RetryTarget> parse_retry(const std::optional<std::string>& retry) {
  if (!retry) return std::nullopt;
  auto slash = retry->find('/');
  if (slash == std::string::npos) {
    throw Error("--retry wants <op>/<variant>, e.g. softmax/v2_tiling", ExitCode::usage);
  }
  RetryTarget t{retry->substr(0, slash), retry->substr(slash + 1)};
  if (std::find(op_variants().begin(), op_variants().end(), t.variant) == op_variants().end()) {
    throw Error("--retry variant '" + t.variant + "' is not one of v1_baseline, v2_tiling, v3_coalesced, "
                "v4_optimized",
                ExitCode::usage);
  }
  t.op = canonical_op(t.op);
  return t;
}

bool should_check(const nlohmann::json& attempts, const std::string& sha, RetryRole role, int max_retries,
                  const std::string& label, const std::string& file) {
  const nlohmann::json* last = attempts.empty() ? nullptr : &attempts.back();
  bool changed = !last || jstr(*last, "kernel_sha256") != sha;
  if (role == RetryRole::retried) {
    if (!last || jstr(*last, "verdict") == "PASS") throw Error(label + " has no failed attempt to retry", ExitCode::usage);
    if (!changed) {
      throw Error(label + " is unchanged since attempt " + std::to_string(attempts.size()) + "; regenerate " + file +
                      " first, then retry",
                  ExitCode::usage);
    }
  }
  if (role == RetryRole::other || !changed) return false;
  bool failed_before = last && jstr(*last, "verdict") != "PASS";
  int retries_used = attempts.empty() ? 0 : static_cast<int>(attempts.size()) - 1;
  if (failed_before && retries_used >= max_retries) {
    if (role == RetryRole::retried) {
      throw Error(fmt::format("{} already used its {} retries (the seed's limit); it stays failed", label, max_retries),
                  ExitCode::failure);
    }
    return false;
  }
  return true;
}

VariantStatus variant_status(const nlohmann::json& attempts, const std::string& sha, int max_retries,
                             const std::string& op) {
  VariantStatus s;
  int used = std::max(0, static_cast<int>(attempts.size()) - 1);
  if (attempts.empty()) {
    s.status = "UNCHECKED";
    s.message = "not checked yet: run kgo ops " + op;
  } else if (jstr(attempts.back(), "kernel_sha256") != sha) {
    bool exhausted = jstr(attempts.back(), "verdict") != "PASS" && used >= max_retries;
    s.status = exhausted ? "GAVE_UP" : "UNCHECKED";
    s.message = exhausted ? fmt::format("edited after its last check, but its {} retries are used up", max_retries)
                          : "edited since its last check: run kgo ops " + op + " to check it";
  } else {
    const nlohmann::json& latest = attempts.back();
    s.status = jstr(latest, "verdict");
    s.message = jstr(latest, "message");
    s.rel_err = jnum(latest, "rel_err");
    if (s.status != "PASS" && used >= max_retries) s.status = "GAVE_UP";
  }
  s.retries_left = s.status == "PASS" ? 0 : std::max(0, max_retries - used);
  return s;
}

}  // namespace kgo::harness
