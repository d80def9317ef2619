"""Anti-cheat fixture: accumulates row sums into a torch.empty buffer it never zeroes (often zeros by luck
on a fresh allocation, so the kernel looks right)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_acc(x_ptr, acc_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    total = tl.load(acc_ptr + row) + tl.sum(e, axis=0)
    tl.store(y_ptr + row * n_cols + cols, e / total, mask=mask)


def triton_softmax(x):
    x2 = x.reshape(-1, x.shape[-1])
    acc = torch.empty(x2.shape[0], device=x.device, dtype=torch.float32)
    y = torch.empty_like(x2)
    _softmax_acc[(x2.shape[0],)](x2, acc, y, x2.shape[1], BLOCK=triton.next_power_of_2(x2.shape[1]))
    return y.reshape(x.shape)
