"""Cheat (a rebound torch function dressed as torch's own wrapper): torch.manual_seed replaced by the kernel's
own function carrying `__wrapped__` = the original, as torch._dynamo's import would leave it. Only a wrapper
from torch's own package around the very snapshotted object is torch's rebind; this one is the kernel's."""
import functools

import torch

from hack_gpu_memory_hog import honest

_original = torch.manual_seed


@functools.wraps(_original)
def manual_seed(seed):
    return _original(seed)


torch.manual_seed = manual_seed


def triton_softmax(x):
    return honest(x)
