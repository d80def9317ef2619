"""Test kernel (honest softmax): appends the torch settings it ran under (deterministic algorithms, NaN fill
of new allocations) to settings.log beside itself, one line per call."""
import pathlib

import torch

from hack_gpu_memory_hog import honest

LOG = pathlib.Path(__file__).with_name("settings.log")


def triton_softmax(x):
    with open(LOG, "a") as f:
        f.write(f"{torch.are_deterministic_algorithms_enabled()} {torch.utils.deterministic.fill_uninitialized_memory}\n")
    return honest(x)
