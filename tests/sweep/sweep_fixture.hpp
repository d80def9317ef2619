#pragma once
// A sweep spec on disk: one kernel with its reference, two platforms, two shapes, one dtype, two steps.
#include <string>

#include "sweep/spec.hpp"
#include "tests/test_util.hpp"

namespace kgo::sweep::test {

inline constexpr const char* k_spec = R"({"name": "demo", "kernels": [{"name": "softmax", "kernel": "k/kernel.py",
  "reference": "k/ref.py"}], "platforms": ["H100", "H200"], "shapes": ["1024x1024", "4096x4096"], "dtypes": ["fp32"],
  "steps": ["check", "bench"], "device": "cpu", "step_args": {"bench": ["--runs", "20"]}, "timeout_s": 60, "retries": 2})";

// Writes the kernel, its reference and `spec` (default k_spec) under `dir`; returns the spec's path.
inline std::filesystem::path write_spec(const kgo::test::TempDir& dir, const std::string& spec = k_spec) {
  kgo::test::write(dir / "k/kernel.py", "def triton_softmax(x):\n    return x\n");
  kgo::test::write(dir / "k/ref.py", "import torch\n");
  kgo::test::write(dir / "spec.json", spec);
  return dir / "spec.json";
}

}  // namespace kgo::sweep::test
