"""Anti-cheat fixture: gelu right only when the element count is a multiple of 1024 (the tail is never
written), which every power-of-two shape of at least 1024 elements is."""
import torch
import triton
import triton.language as tl


@triton.jit
def _gelu(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476)))


def triton_gelu(x):
    y = torch.empty_like(x)
    grid = x.numel() // 1024
    if grid:
        _gelu[(grid,)](x, y, BLOCK=1024)
    return y
