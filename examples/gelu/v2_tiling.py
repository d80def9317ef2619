"""gelu v2_tiling: each program walks TILES consecutive BLOCK-wide tiles, so the grid is TILES times
smaller and each program amortizes its index setup over more elements."""
import torch
import triton
import triton.language as tl


@triton.jit
def _gelu_tiles(x_ptr, y_ptr, n, BLOCK: tl.constexpr, TILES: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * BLOCK * TILES
    for t in range(TILES):
        offs = base + t * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
        tl.store(y_ptr + offs, 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476)), mask=mask)


def triton_gelu(x: torch.Tensor) -> torch.Tensor:
    xc = x.contiguous()
    y = torch.empty_like(xc)
    n = xc.numel()
    block, tiles = 1024, 4
    _gelu_tiles[(triton.cdiv(n, block * tiles),)](xc, y, n, BLOCK=block, TILES=tiles)
    return y
