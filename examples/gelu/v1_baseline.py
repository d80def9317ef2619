"""gelu v1_baseline: a direct translation of F.gelu(x) (erf form): one 1024-element block per program."""
import torch
import triton
import triton.language as tl


@triton.jit
def _gelu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    tl.store(y_ptr + offs, 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476)), mask=mask)


def triton_gelu(x: torch.Tensor) -> torch.Tensor:
    xc = x.contiguous()
    y = torch.empty_like(xc)
    n = xc.numel()
    _gelu[(triton.cdiv(n, 1024),)](xc, y, n, BLOCK=1024)
    return y
