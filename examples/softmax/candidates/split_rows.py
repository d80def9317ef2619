"""softmax, split rows: a wide row (SPLIT_FROM columns and more) is shared by CHUNKS programs of CHUNK columns
each, so that more, smaller programs keep an SM's memory pipe busy where one 16-warp program per row held a
whole SM. Each program reduces its chunk to (max, sum of exp), publishes the pair, waits for its row's other
programs (a per-row arrival counter), combines the pairs and writes its chunk: one read and one write per
element, as with a row in registers. Narrower rows: [ROWS, BLOCK] row tiles per program, as v3_coalesced with
16 warps from 16K columns. The programs of one row have consecutive ids and are scheduled together, so a
waiting program's partners are running or finished. The Triton interpreter runs programs one after another,
so there a row is never split."""
import os

import torch
import triton
import triton.language as tl

SPLIT_FROM = 16384
CHUNK = 8192
CHUNK_WARPS = 8


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
def _softmax_split(x_ptr, y_ptr, stats_ptr, arrived_ptr, n_cols, CHUNKS: tl.constexpr, PEERS: tl.constexpr,
                   CHUNK: tl.constexpr):
    pid = tl.program_id(0)
    row = pid // CHUNKS
    part = pid % CHUNKS
    cols = part * CHUNK + tl.arange(0, CHUNK)
    mask = cols < n_cols
    offs = row.to(tl.int64) * n_cols + cols
    x = tl.load(x_ptr + offs, mask=mask, other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    e = tl.where(mask, tl.exp(x - m), 0.0)
    s = tl.sum(e, axis=0)
    slot = (row * CHUNKS + part) * 2
    tl.atomic_xchg(stats_ptr + slot, m, sem="release")
    tl.atomic_xchg(stats_ptr + slot + 1, s, sem="release")
    tl.atomic_add(arrived_ptr + row, 1, sem="release")
    while tl.atomic_add(arrived_ptr + row, 0, sem="acquire") < CHUNKS:
        pass
    peer = tl.arange(0, PEERS)
    slots = (row * CHUNKS + peer) * 2
    ms = tl.atomic_add(stats_ptr + slots, 0.0, mask=peer < CHUNKS, sem="acquire")
    ss = tl.atomic_add(stats_ptr + slots + 1, 0.0, mask=peer < CHUNKS, sem="acquire")
    ms = tl.where(peer < CHUNKS, ms, -float("inf"))
    ss = tl.where(peer < CHUNKS, ss, 0.0)
    row_max = tl.max(ms, axis=0)
    total = tl.sum(ss * tl.exp(ms - row_max), axis=0)
    tl.store(y_ptr + offs, e * (tl.exp(m - row_max) / total), mask=mask)


def _split(x2):
    return (x2.is_cuda and os.environ.get("TRITON_INTERPRET") != "1" and x2.shape[1] >= SPLIT_FROM)


def triton_softmax(x: torch.Tensor) -> torch.Tensor:
    x2 = x.contiguous().reshape(-1, x.shape[-1])
    y = torch.empty_like(x2)
    n_rows, n_cols = x2.shape
    if n_rows == 0 or n_cols == 0:
        return y.reshape(x.shape)
    if _split(x2):
        chunks = triton.cdiv(n_cols, CHUNK)
        stats = torch.empty(n_rows * chunks * 2, device=x2.device, dtype=torch.float32)
        arrived = torch.zeros(n_rows, device=x2.device, dtype=torch.int32)
        _softmax_split[(n_rows * chunks,)](x2, y, stats, arrived, n_cols, CHUNKS=chunks,
                                           PEERS=triton.next_power_of_2(chunks), CHUNK=CHUNK, num_warps=CHUNK_WARPS)
        return y.reshape(x.shape)
    block = triton.next_power_of_2(n_cols)
    rows = max(1, min(4096 // block, triton.next_power_of_2(n_rows)))
    warps = 16 if block >= 16384 else 8 if block * rows >= 4096 else 4
    _softmax_rows2d[(triton.cdiv(n_rows, rows),)](x2, y, n_rows, n_cols, ROWS=rows, BLOCK=block, num_warps=warps)
    return y.reshape(x.shape)
