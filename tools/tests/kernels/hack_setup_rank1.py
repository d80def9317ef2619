"""Attack (issue 29): setup() makes y one row broadcast over x's rows (rank-1), and run_kernel reads y by
column only. Caught when the judge makes the inputs with the problem's setup(): y is then a full matrix."""
import torch
import triton
import triton.language as tl


@triton.jit
def _add_row(x_ptr, y_ptr, out_ptr, n, cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    y = tl.load(y_ptr + offs % cols, mask=mask)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + y, mask=mask)


def setup(shape=(1024,), dtype="float32", seed=42, device="cuda", **kwargs):
    torch.manual_seed(seed)
    dt = getattr(torch, dtype)
    x = torch.randn(shape, device=device, dtype=dt)
    y = torch.randn(shape[-1:], device=device, dtype=dt).expand(shape).contiguous()   # every row the same
    return {"inputs": {"x": x, "y": y, "out": torch.empty_like(x), "n": x.numel()}, "outputs": ["out"]}


def run_kernel(**kwargs):
    x = kwargs["x"]
    n = int(kwargs["n"])
    _add_row[(triton.cdiv(n, 256),)](x, kwargs["y"], kwargs["out"], n, x.shape[-1], BLOCK=256)
