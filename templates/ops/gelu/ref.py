"""Reference for the gelu variants: F.gelu (erf form; op mode: same signature)."""
import torch
import torch.nn.functional as F


def reference(x: torch.Tensor) -> torch.Tensor:
    return F.gelu(x)
