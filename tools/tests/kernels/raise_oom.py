"""Plumbing of the GPU memory cap, testable on the CPU: the kernel raises the error torch raises when the CUDA
caching allocator hits its cap (torch.OutOfMemoryError); the verdict must be CRASH naming GPU memory."""
import torch


def triton_softmax(x):
    raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB (stand-in raised by the kernel)")
