"""Anti-cheat fixture: a Triton 'softmax' that writes the constant 1/n (the mean of every softmax row)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _fill(y_ptr, n, value, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.zeros([BLOCK], tl.float32) + value, mask=offs < n)


def triton_softmax(x):
    y = torch.empty_like(x)
    _fill[(triton.cdiv(x.numel(), 256),)](y, x.numel(), 1.0 / x.shape[-1], BLOCK=256)
    return y
