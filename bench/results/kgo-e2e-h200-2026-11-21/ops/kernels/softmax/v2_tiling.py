"""softmax v2_tiling: the row is processed in BLOCK-wide tiles with an online max/sum (one pass), then a
second pass writes exp(x - max) / sum; works for rows of any length (nothing has to fit in registers)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_tiled(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * n_cols
    offs = tl.arange(0, BLOCK)
    m = tl.full([BLOCK], -float("inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        x = tl.load(x_ptr + base + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        # Lanes that have seen only -inf keep a zero sum (avoid inf - inf).
        s = tl.where(m_new == -float("inf"), 0.0, s * tl.exp(m - m_new) + tl.exp(x - m_new))
        m = m_new
    row_max = tl.max(m, axis=0)
    row_sum = tl.sum(tl.where(m == -float("inf"), 0.0, s * tl.exp(m - row_max)), axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        mask = cols < n_cols
        x = tl.load(x_ptr + base + cols, mask=mask, other=-float("inf")).to(tl.float32)
        tl.store(y_ptr + base + cols, tl.exp(x - row_max) / row_sum, mask=mask)


def triton_softmax(x: torch.Tensor) -> torch.Tensor:
    x2 = x.contiguous().reshape(-1, x.shape[-1])
    y = torch.empty_like(x2)
    block = min(triton.next_power_of_2(x2.shape[1]), 1024)
    _softmax_tiled[(x2.shape[0],)](x2, y, x2.shape[1], BLOCK=block, num_warps=4)
    return y.reshape(x.shape)
