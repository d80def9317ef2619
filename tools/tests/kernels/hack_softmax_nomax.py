"""Attack (issue 29): softmax without max-subtraction. Right on N(0,1) inputs; exp overflows to inf on
inputs near 100 (inf / inf = NaN). Caught by the stressed trials of judge-made inputs (30 x + 40)."""
import triton
import triton.language as tl


@triton.jit
def _softmax(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    e = tl.exp(tl.load(x_ptr + row * cols + offs, mask=mask, other=-float("inf")))
    tl.store(out_ptr + row * cols + offs, e / tl.sum(e, axis=0), mask=mask)


def run_kernel(x, out, **kwargs):
    cols = x.shape[-1]
    _softmax[(x.numel() // cols,)](x, out, cols, BLOCK=triton.next_power_of_2(cols))
