"""ModelNew for problem.py in KernelBench's layout: a Triton kernel computing a * b - a."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _mul_sub(a, b, out, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    x = tl.load(a + i, mask=m, other=0.0)
    y = tl.load(b + i, mask=m, other=0.0)
    tl.store(out + i, x * y - x, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        a, b = a.contiguous(), b.contiguous()
        out = torch.empty_like(a)
        n = a.numel()
        _mul_sub[(triton.cdiv(n, 256),)](a, b, out, n, BLOCK=256)
        return out
