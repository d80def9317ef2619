"""Counts Triton kernel launches (compiled and interpreted) so the checker knows whether the kernel file's
own kernels ran; installed once per worker, before any kernel module is imported."""
import collections

_counts = collections.Counter()
_installed = False


def install():
    global _installed
    if _installed:
        return
    try:
        import triton.runtime.jit as jit
    except Exception:
        return
    classes = [jit.JITFunction]
    try:
        import triton.runtime.interpreter as interp
        classes.append(interp.InterpretedFunction)
    except Exception:
        pass
    for cls in classes:
        cls.run = _counting(cls.run)
    _installed = True


def _counting(original):
    def run(self, *args, **kwargs):
        if not kwargs.get("warmup", False):
            name = getattr(self, "__name__", None) or getattr(getattr(self, "fn", None), "__name__", "?")
            _counts[name] += 1
        return original(self, *args, **kwargs)
    return run


def reset():
    _counts.clear()


def snapshot():
    return dict(_counts)


def total():
    return sum(_counts.values())
