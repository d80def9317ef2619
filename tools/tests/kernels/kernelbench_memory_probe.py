"""Test kernel (KernelBench ModelNew, honest softmax): on each call, appends to memory.log beside itself how
many tensors of at least the input's size are alive in its process (found through gc), one line per call."""
import gc
import pathlib

import torch
import torch.nn as nn

LOG = pathlib.Path(__file__).with_name("memory.log")


class ModelNew(nn.Module):
    def forward(self, x):
        big = sum(1 for o in gc.get_objects() if type(o) is torch.Tensor and o.numel() >= x.numel())
        with open(LOG, "a") as f:
            f.write(f"{big}\n")
        e = (x - x.amax(dim=-1, keepdim=True)).exp()
        return e / e.sum(dim=-1, keepdim=True)
