"""Timing attack (work deferred past the judge's clock): the kernel replaces its process's handlers (found through
the garbage collector). A timed batch runs no call and replies at once with digests of whatever outputs it holds;
only when the judge asks for the outputs of one call does it run that call, honestly. Its timed samples are divided
by 20, which the judge's clock on the empty batches cannot contradict. Caught because the outputs fetched after the
batch do not match the digests its reply committed to."""
import gc

from kgo_harness import timing

from hack_gpu_memory_hog import honest


def triton_softmax(x):
    return honest(x)


_side = next(o for o in gc.get_objects() if type(o).__name__ == "KernelSide")
_time, _batch, _outputs = _side.time, _side.batch, _side.batch_outputs


def _forged_time(msg):
    out = _time(msg)
    out["samples"] = [s / 20 for s in out["samples"]]
    return out


def _no_calls(msg):
    if msg.get("empty") or not msg.get("sync", True):
        return _batch(msg)
    _side.fresh_asked = msg.get("fresh")
    held = getattr(_side, "stale", None) or [_side.timed_call(r) for r in range(len(_side.timed_cases))]
    _side.stale = held
    return {"digests": [timing.digest(o) for o in held]}


def _late_outputs(msg):
    if getattr(_side, "fresh_asked", None) is not None:
        _side.timed_fresh.reset_all(int(_side.fresh_asked))
    j = int(msg["index"])
    _side.held = [None] * len(_side.timed_cases)
    _side.held[j] = _side.timed_call(j)
    return _outputs(msg)


_side.time, _side.batch, _side.batch_outputs = _forged_time, _no_calls, _late_outputs
