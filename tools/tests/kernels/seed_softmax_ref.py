"""Reference for seed_softmax.py: softmax over the last axis, in place."""
import torch


def reference(x, out, **kwargs):
    out.copy_(torch.softmax(x, dim=-1))
