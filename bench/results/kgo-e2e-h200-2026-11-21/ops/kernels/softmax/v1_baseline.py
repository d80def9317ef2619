"""softmax v1_baseline: a direct translation of torch.softmax(x, dim=-1); one program per row, the whole
row in one block, default launch settings."""
import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_row(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf")).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)


def triton_softmax(x: torch.Tensor) -> torch.Tensor:
    x2 = x.contiguous().reshape(-1, x.shape[-1])
    y = torch.empty_like(x2)
    _softmax_row[(x2.shape[0],)](x2, y, x2.shape[1], BLOCK=triton.next_power_of_2(x2.shape[1]))
    return y.reshape(x.shape)
