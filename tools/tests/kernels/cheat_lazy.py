"""Anti-cheat fixture: returns a tensor subclass (the shape of a deferred result) instead of a tensor."""
import torch
import torch.nn.functional as F


class Deferred(torch.Tensor):
    pass


def triton_gelu(x):
    return F.gelu(x).as_subclass(Deferred)
