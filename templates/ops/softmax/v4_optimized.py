"""softmax v4_optimized: tiling + coalescing. Rows up to MAX_REGISTER_ROW elements stay in registers (one
read and one write per element: the bandwidth floor); narrow rows are packed [ROWS, BLOCK] per program so
warps still make long contiguous accesses; rows longer than that use the online tiled kernel of v2. The
launch settings in config() come from the H200 sweep of bench/harness_h200.py
(evidence/harness-h200-2026-11-20.md, sweep.json): one program per row tile with 4 warps was the fastest
setting there, ahead of persistent grids."""
import torch
import triton
import triton.language as tl

MAX_REGISTER_ROW = 16384


@triton.jit
def _softmax_persistent(x_ptr, y_ptr, n_rows, n_cols, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    col_mask = cols < n_cols
    for start in tl.range(tl.program_id(0) * ROWS, n_rows, tl.num_programs(0) * ROWS):
        rows = start + tl.arange(0, ROWS)
        mask = (rows[:, None] < n_rows) & col_mask[None, :]
        offs = rows[:, None].to(tl.int64) * n_cols + cols[None, :]
        x = tl.load(x_ptr + offs, mask=mask, other=-float("inf"))
        x = x.to(tl.float32)
        e = tl.exp(x - tl.max(x, axis=1)[:, None])
        e = tl.where(mask, e, 0.0)
        y = e * (1.0 / tl.sum(e, axis=1))[:, None]
        tl.store(y_ptr + offs, y, mask=mask)


@triton.jit
def _softmax_long(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * n_cols
    offs = tl.arange(0, BLOCK)
    m = tl.full([BLOCK], -float("inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        x = tl.load(x_ptr + base + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        s = tl.where(m_new == -float("inf"), 0.0, s * tl.exp(m - m_new) + tl.exp(x - m_new))
        m = m_new
    row_max = tl.max(m, axis=0)
    row_sum = tl.sum(tl.where(m == -float("inf"), 0.0, s * tl.exp(m - row_max)), axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        mask = cols < n_cols
        x = tl.load(x_ptr + base + cols, mask=mask, other=-float("inf")).to(tl.float32)
        tl.store(y_ptr + base + cols, tl.exp(x - row_max) / row_sum, mask=mask)


def _programs(x, tiles, per_sm):
    if per_sm == 0:
        return tiles
    if x.is_cuda:
        sms = torch.cuda.get_device_properties(x.device).multi_processor_count
        return max(1, min(tiles, sms * per_sm))
    return max(1, min(tiles, 64))


def config(n_rows, n_cols):
    """(ROWS, BLOCK, num_warps, programs per SM; 0: one program per row tile, no persistence)."""
    block = triton.next_power_of_2(n_cols)
    rows = max(1, min(2048 // block, triton.next_power_of_2(n_rows)))
    warps = 16 if block >= 16384 else 8 if block >= 8192 else 4
    return rows, block, warps, 0


def triton_softmax(x: torch.Tensor) -> torch.Tensor:
    x2 = x.contiguous().reshape(-1, x.shape[-1])
    y = torch.empty_like(x2)
    n_rows, n_cols = x2.shape
    if n_rows == 0 or n_cols == 0:
        return y.reshape(x.shape)
    if n_cols > MAX_REGISTER_ROW:
        _softmax_long[(n_rows,)](x2, y, n_cols, BLOCK=4096, num_warps=8)
        return y.reshape(x.shape)
    rows, block, warps, per_sm = config(n_rows, n_cols)
    grid = (_programs(x2, triton.cdiv(n_rows, rows), per_sm),)
    _softmax_persistent[grid](x2, y, n_rows, n_cols, ROWS=rows, BLOCK=block, num_warps=warps)
    return y.reshape(x.shape)
