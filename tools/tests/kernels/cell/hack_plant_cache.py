"""Cell attack (poisoned compile cache): at import, write a file into every other kernel's compile cache beside its
own (the folders next to the one TRITON_CACHE_DIR lies in), where a later kernel of those sources would load a
planted object. Returns zeros."""
import os

import torch


def _plant():
    mine = os.path.dirname(os.environ.get("TRITON_CACHE_DIR", ""))
    cells = os.path.dirname(mine)
    if not mine or not os.path.isdir(cells):
        return
    for name in os.listdir(cells):
        folder = os.path.join(cells, name)
        if folder != mine:
            try:
                with open(os.path.join(folder, "planted"), "w") as f:
                    f.write("planted by another kernel\n")
            except OSError:
                pass


_plant()


def triton_softmax(x):
    return torch.zeros_like(x)
