"""Anti-cheat fixture: computes gelu in place into its input and returns it (the reference ran on a copy,
so the values match, but the caller's input is destroyed)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _gelu_inplace(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(x_ptr + offs, 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476)), mask=mask)


def triton_gelu(x):
    _gelu_inplace[(triton.cdiv(x.numel(), 256),)](x, x.numel(), BLOCK=256)
    return x
