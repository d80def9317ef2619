"""Reference for the add variants: torch.add(x, y, alpha=alpha) (op mode: same signature)."""
import torch


def reference(x: torch.Tensor, y: torch.Tensor, alpha: float = 1.0) -> torch.Tensor:
    return torch.add(x, y, alpha=alpha)
