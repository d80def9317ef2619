"""Anti-cheat fixture: softmax whose row sums are accumulated with float atomics by several programs per
row. On a GPU the order of the atomics changes from run to run (a race on the accumulation order); the CPU
interpreter runs programs in order, so there the split width changes from call to call instead, which
changes the summation order the same way. Either way two runs on the same input differ in the last bits."""
import itertools

import torch
import triton
import triton.language as tl


@triton.jit
def _partial_sums(x_ptr, sums_ptr, n_cols, CHUNK: tl.constexpr):
    row = tl.program_id(0)
    part = tl.program_id(1)
    cols = part * CHUNK + tl.arange(0, CHUNK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    tl.atomic_add(sums_ptr + row, tl.sum(tl.exp(x), axis=0))


@triton.jit
def _normalize(x_ptr, sums_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
    tl.store(y_ptr + row * n_cols + cols, tl.exp(x) / tl.load(sums_ptr + row), mask=mask)


_widths = itertools.cycle([8, 16, 32])


def triton_softmax(x):
    x2 = x.reshape(-1, x.shape[-1])
    rows, cols = x2.shape
    sums = torch.zeros(rows, device=x.device, dtype=torch.float32)
    chunk = 16 if x.is_cuda else next(_widths)
    _partial_sums[(rows, triton.cdiv(cols, chunk))](x2, sums, cols, CHUNK=chunk)
    y = torch.empty_like(x2)
    _normalize[(rows,)](x2, sums, y, cols, BLOCK=triton.next_power_of_2(cols))
    return y.reshape(x.shape)
