"""Attack in fmh66's seed format (reference: examples/formats/fmh66/ref.py): run_kernel writes the reference if
it can reach it (its code or its outputs, see _thief.py), else zeros."""
import torch

from _thief import reference_code, reference_outputs


def setup(R=16, H=64, seed=0, dtype=torch.float32, **extra):
    torch.manual_seed(seed)
    x = torch.randn((R, H), device="cuda", dtype=dtype)
    g = torch.rand((H,), device="cuda", dtype=dtype) + 0.5
    y = torch.empty((R, H), device="cuda", dtype=dtype)
    return {"inputs": {"x": x, "g": g, "y": y, "R": R, "H": H}, "outputs": ["y"]}


def run_kernel(x, g, y, R, H, **extra):
    found = reference_code(__name__)
    if found and found[0] == "reference":
        flat = torch.empty(y.numel(), dtype=y.dtype, device=y.device)
        found[1](x=x, g=g, y=flat, R=R, H=H)
        y.copy_(flat.view_as(y))
        return
    stolen = reference_outputs(y)
    y.copy_(stolen if stolen is not None else torch.zeros_like(y))
