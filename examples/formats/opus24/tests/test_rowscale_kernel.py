"""Layout of opus24/mcp-for-triton-kernel's tests/test_<op>_kernel.py: reference(), numbered
_test_case_<k>_data() input generators on "cuda", and pytest cases that compare solve() with torch.allclose."""
import torch


def reference(x, w):
    return x * w + 1.0


def _test_case_1_data():
    return torch.randn(16, 96, device="cuda"), torch.randn(96, device="cuda")


def _test_case_2_data():
    return torch.randn(5, 33, device="cuda"), torch.randn(33, device="cuda")


def test_case_1(rowscale_kernel):
    module, version = rowscale_kernel
    x, w = _test_case_1_data()
    assert torch.allclose(module.solve(x, w), reference(x, w), rtol=1e-5, atol=1e-6), f"v{version} case 1"


def test_case_2(rowscale_kernel):
    module, version = rowscale_kernel
    x, w = _test_case_2_data()
    assert torch.allclose(module.solve(x, w), reference(x, w), rtol=1e-5, atol=1e-6), f"v{version} case 2"
