"""softmax, two passes through L2 for wide rows: a persistent grid of PER_SM programs per SM walks the rows;
for each row a first pass reads column tiles and keeps a running (max, sum of exp), a second pass reads the
tiles again and writes the result. Only PER_SM x SMs rows are in flight, so their bytes (128 KiB a row at 32K
fp32 columns) still sit in L2 when the second pass reads them: DRAM sees one read and one write per element,
while each program holds one tile instead of a whole row in registers. Rows narrower than SPLIT_FROM columns:
[ROWS, BLOCK] row tiles per program, as v3_coalesced with 16 warps from 16K columns."""
import torch
import triton
import triton.language as tl

SPLIT_FROM = 16384
TILE = 4096
PER_SM = 2
TILE_WARPS = 8


@triton.jit
def _softmax_rows2d(x_ptr, y_ptr, n_rows, n_cols, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offs = rows[:, None].to(tl.int64) * n_cols + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=1)
    e = tl.exp(x - m[:, None])
    e = tl.where(mask, e, 0.0)
    tl.store(y_ptr + offs, e / tl.sum(e, axis=1)[:, None], mask=mask)


@triton.jit
def _softmax_two_pass(x_ptr, y_ptr, n_rows, n_cols, TILE: tl.constexpr):
    offs = tl.arange(0, TILE)
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        base = tl.cast(row, tl.int64) * n_cols
        m = tl.full([TILE], -float("inf"), tl.float32)
        s = tl.zeros([TILE], tl.float32)
        for start in range(0, n_cols, TILE):
            cols = start + offs
            x = tl.load(x_ptr + base + cols, mask=cols < n_cols, other=-float("inf"),
                        eviction_policy="evict_last").to(tl.float32)
            m_new = tl.maximum(m, x)
            # Lanes that have seen only masked columns keep m = -inf: no exp(-inf - -inf).
            safe = tl.where(m_new == -float("inf"), 0.0, m_new)
            s = s * tl.exp(m - safe) + tl.exp(x - safe)
            m = m_new
        row_max = tl.max(m, axis=0)
        row_sum = tl.sum(s * tl.exp(m - row_max), axis=0)
        scale = 1.0 / row_sum
        for start in range(0, n_cols, TILE):
            cols = start + offs
            mask = cols < n_cols
            x = tl.load(x_ptr + base + cols, mask=mask, other=-float("inf"),
                        eviction_policy="evict_first").to(tl.float32)
            tl.store(y_ptr + base + cols, tl.exp(x - row_max) * scale, mask=mask, eviction_policy="evict_first")


def triton_softmax(x: torch.Tensor) -> torch.Tensor:
    x2 = x.contiguous().reshape(-1, x.shape[-1])
    y = torch.empty_like(x2)
    n_rows, n_cols = x2.shape
    if n_rows == 0 or n_cols == 0:
        return y.reshape(x.shape)
    if n_cols >= SPLIT_FROM:
        sms = torch.cuda.get_device_properties(x2.device).multi_processor_count if x2.is_cuda else 4
        _softmax_two_pass[(min(n_rows, sms * PER_SM),)](x2, y, n_rows, n_cols, TILE=TILE, num_warps=TILE_WARPS)
        return y.reshape(x.shape)
    block = triton.next_power_of_2(n_cols)
    rows = max(1, min(4096 // block, triton.next_power_of_2(n_rows)))
    warps = 16 if block >= 16384 else 8 if block * rows >= 4096 else 4
    _softmax_rows2d[(triton.cdiv(n_rows, rows),)](x2, y, n_rows, n_cols, ROWS=rows, BLOCK=block, num_warps=warps)
    return y.reshape(x.shape)
