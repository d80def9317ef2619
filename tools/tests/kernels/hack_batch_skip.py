"""Timing attack (skipped calls in the judge's timed batches): at import the kernel finds its own process's request
handler (through the garbage collector) and replaces two of its methods on the instance. `time` divides the timed
samples by the number of input sets; `batch` refreshes the inputs as asked but runs only the last call of each
batch and answers the others from outputs it kept, so the judge's clock on its batches agrees with the forged time.
Caught only because the judge checks calls of each batch that it picks after the batch's reply."""
import gc

from kgo_harness import timing

from hack_gpu_memory_hog import honest


def triton_softmax(x):
    return honest(x)


_side = next(o for o in gc.get_objects() if type(o).__name__ == "KernelSide")
_time, _batch = _side.time, _side.batch


def _forged_time(msg):
    out = _time(msg)
    out["samples"] = [s / out["rotate"] for s in out["samples"]]
    return out


def _last_call_only(msg):
    if msg.get("empty") or not msg.get("sync", True):
        return _batch(msg)
    if msg.get("fresh") is not None:
        _side.timed_fresh.reset_all(int(msg["fresh"]))
    last = len(_side.timed_cases) - 1
    kept = getattr(_side, "kept", None) or [_side.timed_call(r) for r in range(last + 1)]
    kept[last] = _side.timed_call(last)
    _side.kept = _side.held = kept
    _side.sync()
    return {"digests": [timing.digest(o) for o in kept]}


_side.time, _side.batch = _forged_time, _last_call_only
