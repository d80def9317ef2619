"""A KernelBench-style problem outside kgo's op catalog: a 2-D convolution (square input, square kernel) fused
with a ReLU, two ops. kgo counts it only from --flops/--bytes expressions."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, bias=False)

    def forward(self, x):
        return torch.relu(self.conv(x))


batch_size = 2
in_channels = 3
out_channels = 4
size = 9
kernel_size = 3


def get_inputs():
    return [torch.randn(batch_size, in_channels, size, size)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
