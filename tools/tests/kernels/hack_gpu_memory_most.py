"""Cheat catalogue: Containment on the GPU with no --memory-limit: take 60% of the device's memory in the
kernel call, more than the default share the kernel's process may hold. GPU only."""
import torch

from hack_gpu_memory_hog import honest


def triton_softmax(x):
    total = torch.cuda.get_device_properties(x.device).total_memory
    hog = torch.empty(int(total * 0.6), dtype=torch.uint8, device=x.device)
    return honest(x) + 0 * hog.numel()
