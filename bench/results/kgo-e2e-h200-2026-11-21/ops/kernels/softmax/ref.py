"""Reference for softmax: the torch op with triton_softmax's signature (op mode), run in float64."""
import torch


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, dim=-1)
