"""Anti-cheat fixture: a correct Triton gelu that only writes the first half of each output."""
import torch
import triton
import triton.language as tl


@triton.jit
def _gelu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476)), mask=mask)


def triton_gelu(x):
    y = torch.empty_like(x)
    half = (x.numel() + 1) // 2
    _gelu[(triton.cdiv(half, 256),)](x, y, half, BLOCK=256)
    return y
