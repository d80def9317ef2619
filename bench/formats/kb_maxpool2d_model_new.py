"""ModelNew for KernelBench level 1 problem 42 (nn.MaxPool2d(kernel_size, stride, padding, dilation) on an NCHW
input): one output element per lane, the window unrolled, int64 offsets (the problem's input has 2^29 elements)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _max_pool2d(x_ptr, y_ptr, H, W, OH, OW, total, K: tl.constexpr, S: tl.constexpr, P: tl.constexpr,
                D: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    live = offs < total
    ow = offs % OW
    oh = (offs // OW) % OH
    plane = offs // (OW * OH)
    acc = tl.full([BLOCK], float("-inf"), tl.float32)
    for kh in tl.static_range(K):
        for kw in tl.static_range(K):
            h = oh * S - P + kh * D
            w = ow * S - P + kw * D
            ok = live & (h >= 0) & (h < H) & (w >= 0) & (w < W)
            v = tl.load(x_ptr + plane * H * W + h * W + w, mask=ok, other=float("-inf"))
            acc = tl.maximum(acc, v.to(tl.float32))
    tl.store(y_ptr + offs, acc.to(y_ptr.dtype.element_ty), mask=live)


class ModelNew(nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int, dilation: int):
        super().__init__()
        self.k, self.s, self.p, self.d = kernel_size, stride, padding, dilation

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        n, c, h, w = x.shape
        oh = (h + 2 * self.p - self.d * (self.k - 1) - 1) // self.s + 1
        ow = (w + 2 * self.p - self.d * (self.k - 1) - 1) // self.s + 1
        y = torch.empty(n, c, oh, ow, device=x.device, dtype=x.dtype)
        total = y.numel()
        _max_pool2d[(triton.cdiv(total, 256),)](x, y, h, w, oh, ow, total, K=self.k, S=self.s, P=self.p, D=self.d,
                                                BLOCK=256)
        return y
