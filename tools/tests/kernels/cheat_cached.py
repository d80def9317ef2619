"""Anti-cheat fixture: a correct Triton gelu that computes once per shape and then returns the cached result."""
import torch
import triton
import triton.language as tl

_cache = {}


@triton.jit
def _gelu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476)), mask=mask)


def triton_gelu(x):
    key = (tuple(x.shape), x.dtype, x.device)
    if key not in _cache:
        y = torch.empty_like(x)
        _gelu[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
        _cache[key] = y
    return _cache[key]
