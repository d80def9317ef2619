#include "sweep/provenance.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "core/files.hpp"
#include "tests/sweep/sweep_fixture.hpp"
#include "tests/tool_env.hpp"

namespace kgo::sweep {

using kgo::test::ScopedEnv;

TEST(ProvenanceTest, RecordsHostKgoAndTheHashesOfTheWorkspacesKernelAndReference) {
  kgo::test::TempDir t;
  kgo::test::write(t / "kernel.py", "def triton_add(x, y):\n    return x + y\n");
  kgo::test::write(t / "ref.py", "import torch\n");
  kgo::test::write(t / "kgo.json", R"({"name": "add", "platform": "H100", "arch": "Hopper", "framework": "triton",
    "dtype": "fp32", "shapes": [[4096, 4096]], "kernel_file": "kernel.py", "reference": "ref.py",
    "wiki": {"path": "<embedded>", "fingerprint": "sha256:)" + std::string(64, '0') + R"(", "embedded": true},
    "kgo_version": "0.1.0", "created_at": "2026-11-26T00:00:00Z"})");
  ScopedEnv cvd("CUDA_VISIBLE_DEVICES", "3");
  ScopedEnv job("SLURM_JOB_ID", "4242");
  nlohmann::json p = provenance(t.path(), nullptr);
  EXPECT_FALSE(p["host"].get<std::string>().empty());
  EXPECT_FALSE(p["kgo_version"].get<std::string>().empty());
  EXPECT_EQ(p["kgo_commit"], kgo_commit());
  EXPECT_EQ(p["kernel_sha256"], core::sha256_file(t / "kernel.py"));
  EXPECT_EQ(p["reference_sha256"], core::sha256_file(t / "ref.py"));
  EXPECT_EQ(p["cuda_visible_devices"], "3");
  EXPECT_EQ(p["slurm_job_id"], "4242");
  EXPECT_TRUE(p["gpu"].is_null());  // cpu_only: no GPU is looked up
}

TEST(ProvenanceTest, OutsideAWorkspaceTheHashesAreNull) {
  kgo::test::TempDir t;
  nlohmann::json p = provenance(t.path(), nullptr);
  EXPECT_TRUE(p["kernel_sha256"].is_null());
  EXPECT_TRUE(p["reference_sha256"].is_null());
}

TEST(ProvenanceTest, TheCommitIsNamed) {
  std::string c = kgo_commit();
  EXPECT_FALSE(c.empty());
  EXPECT_TRUE(c == "unknown" || c.find_first_not_of("0123456789abcdef") >= 7) << c;
}

TEST(ProvenanceTest, WithoutNvidiaSmiNoGpuIsPinned) {
  kgo::test::TempDir t;
  ScopedEnv path("PATH", t.path().string());  // an empty folder: no nvidia-smi
  EXPECT_TRUE(pinned_gpu(std::nullopt).is_null());
  EXPECT_TRUE(pinned_gpu(std::string("0")).is_null());
}

}  // namespace kgo::sweep
