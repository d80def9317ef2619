"""Planted kernels for the harness CLI tests: the example softmax made wrong, crashing or slow, and
helpers shared by test_check / test_bench / test_baseline / test_ops."""
import hashlib
import json
import pathlib
import shutil
import subprocess

from conftest import SOURCE_DIR, run_kgo

GOOD = (SOURCE_DIR / "examples" / "softmax" / "kernel.py").read_text()
REF = SOURCE_DIR / "templates" / "ops" / "softmax" / "ref.py"
_ENTRY_BODY = "    rows, cols = x.shape\n"
assert _ENTRY_BODY in GOOD and "y = e / tl.sum(e, axis=0)" in GOOD


def wrong():
    """Normalizes by sum + 1: every element is off by a few percent."""
    return GOOD.replace("y = e / tl.sum(e, axis=0)", "y = e / (tl.sum(e, axis=0) + 1.0)")


def segfault():
    return GOOD.replace(_ENTRY_BODY, _ENTRY_BODY + "    import ctypes\n    ctypes.string_at(0)\n")


def abort():
    return GOOD.replace(_ENTRY_BODY, _ENTRY_BODY + "    import os\n    os.abort()\n")


def forged_timer(factor):
    """Honest calls, but the kernel's process reports its timed samples divided by `factor` (its `time` handler
    rebound through the garbage collector): only the judge's clock and the physical floor can refuse it."""
    return GOOD + (
        "\n\nimport gc as _gc\n"
        "_side = next(o for o in _gc.get_objects() if type(o).__name__ == 'KernelSide')\n"
        "_time = _side.time\n\n\n"
        "def _forged_time(msg):\n"
        "    out = _time(msg)\n"
        f"    out['samples'] = [s / {factor} for s in out['samples']]\n"
        "    return out\n\n\n"
        "_side.time = _forged_time\n")


def sleeper():
    return GOOD.replace(_ENTRY_BODY, _ENTRY_BODY + "    import time\n    time.sleep(600)\n")


def sha256(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def record(ws, n=0):
    return json.loads((ws / "memory" / f"v{n}.json").read_text())


def has_gpu():
    if shutil.which("nvidia-smi") is None:
        return False
    return subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0


# Small shapes keep the Triton interpreter quick on CI; edge shapes are the harness's own tests.
CPU = ["--device", "cpu", "--shape", "8x33", "--no-edge-shapes"]


def check(ws, *extra, detail=True, **kw):
    """`kgo check` on CPU; under --json with --detail (every case and the harness result) unless detail=False."""
    trials = [] if "--trials" in extra else ["--trials", "1"]
    more = ["--detail"] if detail and "--json" in extra else []
    return run_kgo("check", "--workspace", ws, *CPU, *trials, *extra, *more, **kw)
