"""ModelNew for maxpool2d_problem.py: a Triton max pool, one output element per lane (contiguous NCHW input)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _max_pool2d(x_ptr, y_ptr, H, W, OH, OW, total, K: tl.constexpr, S: tl.constexpr, P: tl.constexpr,
                BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    live = offs < total
    ow = offs % OW
    oh = (offs // OW) % OH
    plane = offs // (OW * OH)
    acc = tl.full([BLOCK], float("-inf"), tl.float32)
    for kh in tl.static_range(K):
        for kw in tl.static_range(K):
            h = oh * S - P + kh
            w = ow * S - P + kw
            ok = live & (h >= 0) & (h < H) & (w >= 0) & (w < W)
            v = tl.load(x_ptr + plane * H * W + h * W + w, mask=ok, other=float("-inf"))
            acc = tl.maximum(acc, v.to(tl.float32))
    tl.store(y_ptr + offs, acc, mask=live)


class ModelNew(nn.Module):
    def __init__(self, kernel_size, stride, padding):
        super().__init__()
        self.k, self.s, self.p = kernel_size, stride, padding

    def forward(self, x):
        x = x.contiguous()
        n, c, h, w = x.shape
        oh = (h + 2 * self.p - self.k) // self.s + 1
        ow = (w + 2 * self.p - self.k) // self.s + 1
        y = torch.empty(n, c, oh, ow, device=x.device, dtype=x.dtype)
        total = y.numel()
        _max_pool2d[(triton.cdiv(total, 128),)](x, y, h, w, oh, ow, total, K=self.k, S=self.s, P=self.p, BLOCK=128)
        return y
