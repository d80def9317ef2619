"""ref.py in fmh66/kernel-opt-agent's CUDA layout: setup() with integer dims, a float setting with a default
(eps) and the returned {"inputs": ..., "outputs": [...]} that names the outputs; reference(**kw) fills them."""
import torch


def setup(rows=256, cols=1024, eps=1e-6, seed=42, dtype=torch.float32, **kwargs):
    torch.manual_seed(seed)
    x = torch.randn(rows * cols, device="cuda", dtype=dtype)
    w = torch.randn(cols, device="cuda", dtype=dtype)
    y = torch.empty(rows * cols, device="cuda", dtype=dtype)
    return {"inputs": {"x": x, "w": w, "y": y, "rows": rows, "cols": cols, "eps": eps}, "outputs": ["y"]}


def reference(x, w, y, rows, cols, eps, **kwargs):
    m = x[:rows * cols].view(rows, cols)
    out = m * torch.rsqrt(m.pow(2).mean(dim=1, keepdim=True) + eps) * w[:cols]
    y[:rows * cols].copy_(out.reshape(-1))
