"""{{op}} v1_baseline: a direct 1:1 translation of the torch op, no optimization (one BLOCK per program).

Skeleton written by `kgo ops` for an op without a ready template. Replace the body of _kernel with the
op's computation and keep the signature of {{entry}}: it must match the torch op (op mode of
tools/kgo_harness/PROTOCOL.md). Until then `kgo check` fails on purpose (the output is never written)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    # TODO({{op}}): compute y from x here and store it with tl.store(y_ptr + offs, y, mask=mask).


def {{entry}}(x: torch.Tensor) -> torch.Tensor:
    xc = x.contiguous()
    y = torch.empty_like(xc)
    n = xc.numel()
    _kernel[(triton.cdiv(n, 1024),)](xc, y, n, BLOCK=1024)
    return y
