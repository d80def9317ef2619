"""A KernelBench ModelNew that compiles its own kernel with torch.utils.cpp_extension.load_inline (the form of
KernelBench's leaderboard kernels; here a C++ one, so that it builds and runs on the CPU) is judged on its
kernel: the calls into the module it compiled count as its own launches, so delegation does not flag it.
The module is built on pybind11 alone (no_implicit_headers, raw pointers): with torch/extension.h its build took
34 s of CPU on 2 cores, a twelfth of the whole suite's; this one takes about 6."""
# ctest-cost: 11
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ENTRY, ROOT

MODEL_NEW = '''
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

SRC = """
#include <pybind11/pybind11.h>
#include <cstdint>
void mul_sub(std::uintptr_t a, std::uintptr_t b, std::uintptr_t out, std::int64_t n) {
  const float* pa = reinterpret_cast<const float*>(a);
  const float* pb = reinterpret_cast<const float*>(b);
  float* po = reinterpret_cast<float*>(out);
  for (std::int64_t i = 0; i < n; ++i) po[i] = pa[i] * pb[i] - pa[i];
}
"""
ext = load_inline(name="kgo_test_mul_sub", cpp_sources=SRC, functions=["mul_sub"], no_implicit_headers=True,
                  with_pytorch_error_handling=False)


class ModelNew(nn.Module):
    def forward(self, a, b):
        a, b = a.contiguous(), b.contiguous()
        out = torch.empty_like(a)
        ext.mul_sub(a.data_ptr(), b.data_ptr(), out.data_ptr(), a.numel())
        return out
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
