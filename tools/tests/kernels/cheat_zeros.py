"""Anti-cheat fixture: a Triton 'softmax' that writes zeros (a plausible-looking constant for tiny outputs)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _fill(y_ptr, n, value, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.zeros([BLOCK], tl.float32) + value, mask=offs < n)


VALUE = 0.0


def triton_softmax(x):
    y = torch.empty_like(x)
    _fill[(triton.cdiv(x.numel(), 256),)](y, x.numel(), VALUE, BLOCK=256)
    return y
