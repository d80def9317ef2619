"""Test kernel (KernelBench ModelNew, honest softmax): on each call, prints on its stderr how many tensors of at
least the input's size are alive in its process (found through gc), as `KGO-PROBE memory <count>`."""
import gc
import sys

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        big = sum(1 for o in gc.get_objects() if type(o) is torch.Tensor and o.numel() >= x.numel())
        sys.__stderr__.write(f"KGO-PROBE memory {big}\n")
        sys.__stderr__.flush()
        e = (x - x.amax(dim=-1, keepdim=True)).exp()
        return e / e.sum(dim=-1, keepdim=True)
