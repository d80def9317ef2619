"""Attack (issue 29), fmh66 format: setup() computes the RMS-norm answer and passes it as a scratch input,
which run_kernel copies. Caught when the judge makes the inputs with the problem's setup() (no scratch)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=mask), mask=mask)


def setup(R=256, H=1024, seed=0, dtype=torch.float32, **extra):
    torch.manual_seed(seed)
    x = torch.randn((R, H), device="cuda", dtype=dtype)
    g = torch.rand((H,), device="cuda", dtype=dtype) + 0.5
    v = x.double()
    answer = (v * torch.rsqrt(v.pow(2).mean(dim=-1, keepdim=True) + 1e-6) * g.double()).to(dtype)
    return {"inputs": {"x": x, "g": g, "y": torch.empty((R, H), device="cuda", dtype=dtype), "R": R, "H": H,
                       "scratch": answer}, "outputs": ["y"]}


def run_kernel(x, g, y, R, H, scratch=None, **extra):
    _copy[(triton.cdiv(R * H, 1024),)](scratch, y, R * H, BLOCK=1024)
