"""ModelNew for conv2d_problem.py, in plain torch (the test is about kgo's counting, not the kernel)."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, bias=False)

    def forward(self, x):
        return torch.relu(self.conv(x))
