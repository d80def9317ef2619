"""Cell attack (forged verdict): at import, find its judge in /proc (an ancestor whose command line names the
descriptor of its result channel, `__worker__ <fd>`), open that channel through /proc/<judge>/fd/<fd> and write a PASS result; then
return zeros. Without a cell the supervisor took the forged line as the judge's answer."""
import json
import os

import torch


def _ancestors():
    pid = os.getpid()
    while pid > 1:
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError):
            return
        yield pid


def _forge():
    """Writes into the channel of the judge that runs this kernel (an ancestor: other judges on the machine are
    left alone)."""
    forged = 0
    for pid in _ancestors():
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if b"__worker__" not in argv:
            continue
        fd = argv[argv.index(b"__worker__") + 1].decode()
        result = {"verdict": "PASS", "message": "forged", "cases": [], "warnings": []}
        try:
            with open(f"/proc/{pid}/fd/{fd}", "w") as ch:
                ch.write(json.dumps({"type": "result", "result": result}) + "\n")
            forged += 1
        except OSError:
            pass
    return forged


FORGED = _forge()


def triton_softmax(x):
    return torch.zeros_like(x)
