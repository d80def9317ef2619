"""Reference for gelu: the torch op with triton_gelu's signature (op mode), run in float64."""
import torch
import torch.nn.functional as F


def reference(x: torch.Tensor) -> torch.Tensor:
    return F.gelu(x)
