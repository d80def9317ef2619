"""Seed-contract fixture (setup/run_kernel, as in the seed's template): out = x + y in Triton."""
import torch
import triton
import triton.language as tl


@triton.jit
def _kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x + y, mask=mask)


def setup(shape=(1024,), dtype="float32", seed=42, device="cuda", **kwargs):
    torch.manual_seed(seed)
    dt = getattr(torch, dtype)
    x = torch.randn(shape, device=device, dtype=dt)
    y = torch.randn(shape, device=device, dtype=dt)
    out = torch.empty(shape, device=device, dtype=dt)
    return {"inputs": {"x": x, "y": y, "out": out, "n": x.numel()}, "outputs": ["out"]}


def run_kernel(**kwargs):
    x, y, out, n = kwargs["x"], kwargs["y"], kwargs["out"], int(kwargs["n"])
    _kernel[(triton.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
