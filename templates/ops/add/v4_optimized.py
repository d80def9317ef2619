"""add v4_optimized: tiling + coalescing: contiguous BLOCK-wide tiles, each thread making 16-byte accesses
that coalesce across the warp (x + alpha * y); 32-bit offsets unless the tensor needs 64-bit ones. Block
size and warps come from the H200 sweep of bench/harness_h200.py
(evidence/harness-h200-2026-11-20.md, sweep.json): BLOCK 1024 with 4 warps was within 1% of the fastest
setting tried at 4096x4096."""
import torch
import triton
import triton.language as tl


@triton.jit
def _add_stream(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr, WIDE: tl.constexpr):
    pid = tl.program_id(0)
    if WIDE:
        start = pid.to(tl.int64) * BLOCK
    else:
        start = pid * BLOCK
    offs = start + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + alpha * y, mask=mask)


def config(n):
    """(BLOCK, num_warps) for an element count."""
    if n >= 1 << 16:
        return 1024, 4
    return 512, 4


def triton_add(x: torch.Tensor, y: torch.Tensor, alpha: float = 1.0) -> torch.Tensor:
    assert x.shape == y.shape, "x and y must have the same shape"
    xc, yc = x.contiguous(), y.contiguous()
    out = torch.empty_like(xc)
    n = xc.numel()
    if n == 0:
        return out
    block, warps = config(n)
    _add_stream[(triton.cdiv(n, block),)](xc, yc, out, n, alpha, BLOCK=block, WIDE=n + block >= 2**31,
                                            num_warps=warps)
    return out
