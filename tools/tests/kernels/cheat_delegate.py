"""Anti-cheat fixture: launches a token Triton kernel, then returns torch.softmax, the op it replaces."""
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.zeros([BLOCK], tl.float32), mask=offs < n)


def triton_softmax(x):
    scratch = torch.empty(1, device=x.device)
    _touch[(1,)](scratch, 1, BLOCK=16)
    return torch.softmax(x, dim=-1)
