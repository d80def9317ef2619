"""A problem in KernelBench's example layout (its prompts' model_ex_add.py has this form): get_inputs() makes
fixed-size inputs and the module has no size integers, so there is no shape to set."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a * b - a


def get_inputs():
    return [torch.randn(3, 200), torch.randn(3, 200)]


def get_init_inputs():
    return []
