#include "sweep/step_args.hpp"

#include <map>
#include <set>

#include <fmt/format.h>

#include "core/error.hpp"

namespace kgo::sweep {

namespace {

// Options that only change how a step measures or finds the kernel, or how much of its result it prints
// (--detail: the harness's whole result, e.g. which warm judge served the job). Anything else is refused.
const std::map<std::string, std::set<std::string>>& allowed() {
  static const std::map<std::string, std::set<std::string>> m = {
      {"check", {"--trials", "--seed", "--case-timeout", "--timeout", "--op", "--entry", "--arg", "--no-record",
                 "--detail"}},
      {"bench", {"--detail", "--runs", "--precision", "--max-runs", "--graph", "--no-compile", "--no-eager", "--warmup", "--rotate",
                 "--size-timeout", "--timeout", "--op", "--entry", "--arg", "--no-record", "--quiet"}},
      {"baseline", {"--trials", "--runs", "--precision", "--max-runs", "--graph", "--no-compile", "--op",
                    "--case-timeout", "--timeout", "--quiet"}},
      {"profile", {"--kernel-regex", "--launch-skip", "--set", "--warmup", "--timeout", "--op", "--entry", "--arg"}},
      {"propose", {"--trials", "--description", "--op", "--entry", "--arg"}},
      {"status", {}},
  };
  return m;
}

// Why a known option is refused, and what to do instead.
std::string refusal(const std::string& flag) {
  static const std::map<std::string, std::string> why = {
      {"--workspace", "each job runs in its own workspace copy; list workspaces or kernels in the spec"},
      {"--json", "kgo sweep always reads the step's --json"},
      {"--shape", "shapes are a sweep axis: use the spec's \"shapes\""},
      {"--size", "shapes are a sweep axis: use the spec's \"shapes\""},
      {"--dtype", "dtypes are a sweep axis: use the spec's \"dtypes\""},
      {"--device", "the device is set once for the sweep: use the spec's \"device\""},
      {"--atol", "it loosens the verdict; tolerances belong to the op catalog or the workspace's reference"},
      {"--rtol", "it loosens the verdict; tolerances belong to the op catalog or the workspace's reference"},
      {"--max-rel-err", "it loosens the verdict; tolerances belong to the op catalog or the workspace's reference"},
      {"--no-edge-shapes", "it skips the odd-sized shapes that catch wrong kernels"},
      {"--no-flush-l2", "it lets a warm L2 inflate the timing"},
      {"--allow-op", "it lets the kernel delegate to the ops the judge refuses"},
      {"--python", "it names a program every job would run; set the interpreter on the machine running the sweep"},
      {"--ncu", "it names a program every job would run; put ncu on PATH or CUDA_HOME instead"},
      {"--thresholds", "it reads a file outside the job's workspace"},
  };
  auto it = why.find(flag);
  return it == why.end() ? "" : it->second;
}

}  // namespace

void screen_step_args(const std::string& step, const std::vector<std::string>& args) {
  auto steps = allowed().find(step);
  if (steps == allowed().end()) throw Error("sweep spec: step_args for unknown step '" + step + "'", ExitCode::usage);
  for (const auto& token : args) {
    if (token.empty() || token[0] != '-') continue;  // a value of the option before it
    std::string flag = token.substr(0, token.find('='));
    if (steps->second.count(flag)) continue;
    std::string reason = refusal(flag);
    std::string ok;
    for (const auto& f : steps->second) ok += (ok.empty() ? "" : ", ") + f;
    throw Error(fmt::format("sweep spec: step_args.{} may not contain '{}': {}. Options allowed for {}: {}", step,
                            flag, reason.empty() ? "kgo " + step + " has no such option, or it is not one a sweep may set" : reason,
                            step, ok.empty() ? "none" : ok),
                ExitCode::usage);
  }
}

}  // namespace kgo::sweep
