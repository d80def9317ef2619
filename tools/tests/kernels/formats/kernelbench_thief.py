"""Attack in KernelBench's format (reference: examples/formats/kernelbench/problem.py): ModelNew returns the
reference if it can reach it (the problem's Model, or its outputs, see _thief.py), else zeros."""
import torch
import torch.nn as nn

from _thief import reference_code, reference_outputs


class ModelNew(nn.Module):
    def forward(self, x):
        found = reference_code(__name__)
        if found and found[0] == "Model":
            return found[1]()(x)
        stolen = reference_outputs(x)
        return stolen if stolen is not None else torch.zeros_like(x)
