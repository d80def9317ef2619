"""gelu v3_coalesced: larger blocks with more warps (and 64-bit offsets), so every thread issues wide
(16-byte) loads and stores that coalesce across the warp."""
import torch
import triton
import triton.language as tl


@triton.jit
def _gelu_wide(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    start = tl.program_id(0).to(tl.int64) * BLOCK
    offs = start + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    tl.store(y_ptr + offs, 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476)), mask=mask)


def triton_gelu(x: torch.Tensor) -> torch.Tensor:
    xc = x.contiguous()
    y = torch.empty_like(xc)
    n = xc.numel()
    _gelu_wide[(triton.cdiv(n, 4096),)](xc, y, n, BLOCK=4096, num_warps=8)
    return y
