"""A KernelBench ModelNew that compiles its own kernel with torch.utils.cpp_extension.load_inline (the form of
KernelBench's leaderboard kernels; here a C++ one, so that it builds and runs on the CPU) is judged on its
kernel: the calls into the module it compiled count as its own launches, so delegation does not flag it."""
# ctest-cost: 2
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ENTRY, ROOT

MODEL_NEW = '''
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

SRC = """
#include <torch/extension.h>
torch::Tensor mul_sub(torch::Tensor a, torch::Tensor b) {
  auto out = torch::empty_like(a);
  const float* pa = a.data_ptr<float>();
  const float* pb = b.data_ptr<float>();
  float* po = out.data_ptr<float>();
  for (int64_t i = 0; i < a.numel(); ++i) po[i] = pa[i] * pb[i] - pa[i];
  return out;
}
"""
ext = load_inline(name="kgo_test_mul_sub", cpp_sources=SRC, functions=["mul_sub"])


class ModelNew(nn.Module):
    def forward(self, a, b):
        return ext.mul_sub(a.contiguous(), b.contiguous())
'''


@pytest.mark.skipif(shutil.which("ninja") is None or shutil.which("c++") is None, reason="needs ninja and c++")
def test_load_inline_kernel_is_the_files_own(tmp_path):
    kernel = tmp_path / "model_new.py"
    kernel.write_text(MODEL_NEW)
    req = {"command": "check", "kernel": str(kernel), "device": "cpu", "trials": 1,
           "reference": str(ROOT / "examples" / "formats" / "kernelbench-fixed" / "problem.py"),
           "total_timeout_s": 900, "case_timeout_s": 800}
    env = dict(os.environ, TORCH_EXTENSIONS_DIR=str(tmp_path / "ext"))
    proc = subprocess.run([sys.executable, str(ENTRY), "check"], input=json.dumps(req), capture_output=True,
                          text=True, timeout=1000, cwd=ROOT, env=env)
    res = json.loads(proc.stdout)
    assert res["contract"] == "kernelbench" and res["verdict"] == "PASS", res["message"]
    d = res["delegation"]
    assert d["delegated"] is False and d["own_launches"] >= 1, d
    assert "mul_sub (cpp_extension.load_inline)" in d["message"]
