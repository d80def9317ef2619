"""Seed-contract fixture: out = x - y (wrong)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) - tl.load(y_ptr + offs, mask=mask), mask=mask)


def setup(shape=(1024,), dtype="float32", seed=42, device="cuda", **kwargs):
    torch.manual_seed(seed)
    dt = getattr(torch, dtype)
    x = torch.randn(shape, device=device, dtype=dt)
    y = torch.randn(shape, device=device, dtype=dt)
    return {"inputs": {"x": x, "y": y, "out": torch.empty_like(x), "n": x.numel()}, "outputs": ["out"]}


def run_kernel(**kwargs):
    n = int(kwargs["n"])
    _kernel[(triton.cdiv(n, 256),)](kwargs["x"], kwargs["y"], kwargs["out"], n, BLOCK=256)
