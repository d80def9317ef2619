"""What a kernel's call ran: Triton kernel launches (compiled and interpreted), counted so the checker knows
whether the kernel file's own kernels ran (installed once per worker, before any kernel module is imported),
and the aten ops and GPU kernels torch's profiler saw (profiled)."""
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


def profiled(run, cuda):
    """Calls `run()` under torch's autograd profiler; returns (aten op names, GPU kernel names). Not
    torch.profiler.profile: its start imports torch._inductor and with it torch._dynamo, 2-3.5 s of a cold check
    in each process that profiles; both record the same events."""
    from torch.autograd import profiler
    with profiler.profile(use_device="cuda" if cuda else None) as prof:
        run()
    events = list(prof.function_events)
    return ({e.name for e in events if e.name.startswith("aten::")},
            {e.name for e in events if str(getattr(e, "device_type", "")).endswith("CUDA")})
