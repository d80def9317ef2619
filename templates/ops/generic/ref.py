"""Reference for {{op}} (op mode): the torch op with the same signature as {{entry}}."""
import torch


def reference(x: torch.Tensor) -> torch.Tensor:
    raise NotImplementedError("write the torch expression of {{op}} here, e.g. torch.{{op}}(x)")
