"""Anti-cheat fixture: no kernel at all, only torch ops that compute softmax."""
import torch


def triton_softmax(x):
    e = torch.exp(x - x.max(dim=-1, keepdim=True).values)
    return e / e.sum(dim=-1, keepdim=True)
