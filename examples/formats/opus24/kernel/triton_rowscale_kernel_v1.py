"""Layout of opus24/mcp-for-triton-kernel (kernel/triton_<op>_kernel_v<N>.py exposing solve(), judged by
tests/test_<op>_kernel.py): kgo's own kernel, y[r, c] = x[r, c] * w[c] + 1."""
import torch
import triton
import triton.language as tl


@triton.jit
def _rowscale(x, w, y, cols, total, BLOCK: tl.constexpr):
    idx = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = idx < total
    v = tl.load(x + idx, mask=keep, other=0.0)
    s = tl.load(w + idx % cols, mask=keep, other=0.0)
    tl.store(y + idx, v * s + 1.0, mask=keep)


def solve(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    y = torch.empty_like(x)
    total = x.numel()
    _rowscale[(triton.cdiv(total, 512),)](x, w, y, x.shape[-1], total, BLOCK=512)
    return y
