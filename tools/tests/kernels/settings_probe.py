"""Test kernel (honest softmax): appends the torch settings it ran under (deterministic algorithms, NaN fill
of new allocations) on its stderr as `KGO-PROBE settings <deterministic> <fill>`, one line per call (a kernel
cannot write files outside its cell)."""
import sys

import torch

from hack_gpu_memory_hog import honest


def triton_softmax(x):
    sys.__stderr__.write(f"KGO-PROBE settings {torch.are_deterministic_algorithms_enabled()} "
                         f"{torch.utils.deterministic.fill_uninitialized_memory}\n")
    sys.__stderr__.flush()
    return honest(x)
