"""Attack (issue 29): setup() ignores the seed, so every case and every timed input set of a shape holds the
same values; run_kernel computes once per shape and afterwards only copies its memo (a bench then times a
copy). Caught when the judge makes the inputs with the problem's setup(): the sets differ."""
import torch
import triton
import triton.language as tl

_MEMO = {}


@triton.jit
def _add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def setup(shape=(1024,), dtype="float32", seed=42, device="cuda", **kwargs):
    torch.manual_seed(0)   # the seed asked for is ignored
    dt = getattr(torch, dtype)
    x = torch.randn(shape, device=device, dtype=dt)
    y = torch.randn(shape, device=device, dtype=dt)
    return {"inputs": {"x": x, "y": y, "out": torch.empty_like(x), "n": x.numel()}, "outputs": ["out"]}


def run_kernel(**kwargs):
    x, out, n = kwargs["x"], kwargs["out"], int(kwargs["n"])
    key = tuple(x.shape)
    if key not in _MEMO:
        _add[(triton.cdiv(n, 256),)](x, kwargs["y"], out, n, BLOCK=256)
        _MEMO[key] = out.clone()
    out.copy_(_MEMO[key])
