"""Timing attack (memoised timed calls): honest under check, but while timed (check's deterministic mode is off
then) it answers from a cache keyed by the input's address, so every timed call after the first per input set
costs a dictionary lookup. Without fresh inputs per timed sample its outputs stay right and its time is a lie."""
import torch

from hack_gpu_memory_hog import honest

_CACHE = {}


def triton_softmax(x):
    if torch.are_deterministic_algorithms_enabled():
        return honest(x)
    key = (x.data_ptr(), tuple(x.shape))
    if key not in _CACHE:
        _CACHE[key] = honest(x)
    return _CACHE[key]
