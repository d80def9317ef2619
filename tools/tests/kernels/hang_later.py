"""Fixture: right on the first case's inputs (its determinism run too), then never returns on other inputs."""
import time

import torch

_first = []


def triton_softmax(x):
    key = float(x.sum())
    _first.append(_first[0] if _first else key)
    while key != _first[0]:
        time.sleep(0.05)
    return torch.softmax(x, dim=-1)
