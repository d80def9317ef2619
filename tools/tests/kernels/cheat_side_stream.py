"""Anti-cheat fixture (GPU only): a correct softmax launched on a side stream that neither waits for the
caller's stream nor is joined back, so events on the caller's stream see almost nothing."""
import torch
import triton
import triton.language as tl

_stream = None


@triton.jit
def _softmax_row(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)


def triton_softmax(x):
    global _stream
    if _stream is None:
        _stream = torch.cuda.Stream()
    x2 = x.reshape(-1, x.shape[-1])
    y = torch.empty_like(x2)
    with torch.cuda.stream(_stream):
        _softmax_row[(x2.shape[0],)](x2, y, x2.shape[1], BLOCK=triton.next_power_of_2(x2.shape[1]))
    return y.reshape(x.shape)
