"""Attack (issue 29): setup() precomputes the answer and hands it to run_kernel as a "scratch" input, which
the kernel only copies. Caught when the judge makes the inputs with the problem's setup(): there is no such
input."""
import torch
import triton
import triton.language as tl


@triton.jit
def _copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=mask), mask=mask)


def setup(shape=(1024,), dtype="float32", seed=42, device="cuda", **kwargs):
    torch.manual_seed(seed)
    dt = getattr(torch, dtype)
    x = torch.randn(shape, device=device, dtype=dt)
    y = torch.randn(shape, device=device, dtype=dt)
    scratch = x + y   # the answer, made where the harness does not look
    return {"inputs": {"x": x, "y": y, "out": torch.empty_like(x), "n": x.numel(), "scratch": scratch},
            "outputs": ["out"]}


def run_kernel(**kwargs):
    n = int(kwargs["n"])
    _copy[(triton.cdiv(n, 256),)](kwargs["scratch"], kwargs["out"], n, BLOCK=256)
