"""Test kernel (honest softmax): imports torch._dynamo as a kernel that uses torch.compile would, after the
harness's tamper snapshot. Importing it makes torch wrap torch.manual_seed in its own code: not tampering."""
import torch
import torch._dynamo  # noqa: F401

from hack_gpu_memory_hog import honest


def triton_softmax(x):
    return honest(x)
