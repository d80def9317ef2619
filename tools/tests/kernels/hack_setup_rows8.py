"""Attack (issue 29): setup() caps the rows at 8, and run_kernel adds only the first 8 rows (a bench then
times an eighth of the work or less). Caught when the judge makes the inputs with the problem's setup()."""
import torch
import triton
import triton.language as tl


@triton.jit
def _add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def setup(shape=(1024,), dtype="float32", seed=42, device="cuda", **kwargs):
    torch.manual_seed(seed)
    shape = (min(shape[0], 8),) + tuple(shape[1:])
    dt = getattr(torch, dtype)
    x = torch.randn(shape, device=device, dtype=dt)
    y = torch.randn(shape, device=device, dtype=dt)
    return {"inputs": {"x": x, "y": y, "out": torch.empty_like(x), "n": x.numel()}, "outputs": ["out"]}


def run_kernel(**kwargs):
    x = kwargs["x"]
    n = min(int(kwargs["n"]), 8 * (x.numel() // max(1, x.shape[0])))   # the first 8 rows only
    _add[(triton.cdiv(n, 256),)](x, kwargs["y"], kwargs["out"], n, BLOCK=256)
