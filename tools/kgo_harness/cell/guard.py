"""Identities of the timing primitives and of the harness's own code in the kernel's process, taken before
the kernel is imported and compared after its import and after every timed run. A rebound or re-coded
primitive (events, synchronize, CUDA graphs, streams, clocks, the profiler, the harness's functions) means
the kernel tampered with its own measurement: verdict REWARD_HACK. Any check made inside the kernel's process
can be blinded by the kernel, so every reply of that process also carries its clocks as it reads them
(clock_stamp), and the judge, in its own process, holds them against its own readings around the exchange
(clock_disagreement): a patched clock shows up there whatever the kernel did to the in-process check."""
import math
import os
import sys
import time
import types

_MODULES = ("time", "torch", "torch.cuda", "torch.cuda.streams", "torch.cuda.graphs", "torch.cuda.memory",
            "torch._C", "torch._C._profiler", "torch.profiler", "torch.autograd.profiler",
            "torch.utils.deterministic", "ctypes", "triton.runtime.jit",
            "_cffi_backend")   # _profiler: the observer's call ranges; _cffi_backend: its libraries' lookups
_CLASS_PATHS = (("torch.cuda", "Event"), ("torch.cuda", "Stream"), ("torch.cuda", "CUDAGraph"),
                ("torch.cuda", "graph"), ("torch._C", "_CudaEventBase"), ("torch._C", "_CudaStreamBase"),
                ("torch._C", "_CUDAGraph"), ("torch", "Tensor"), ("torch._C", "TensorBase"),
                ("torch.profiler", "profile"))


_C_TIMING = ("cuda", "Cuda", "CUDA", "sync", "Event", "Graph", "Stream", "profil", "Profil", "sleep")


# Rebinds torch makes itself when a part of it that loads lazily (after the snapshot) is imported, by the module
# that makes them: importing torch._dynamo (a kernel that uses torch.compile) wraps torch.manual_seed.
_TORCH_OWN_REBINDS = {"torch.manual_seed": "torch._dynamo"}


def _torch_own_rebind(label, snapped, current):
    """Whether `current` is torch's own wrapper, from torch's package, around exactly the snapshotted object."""
    importer = _TORCH_OWN_REBINDS.get(label)
    torch = sys.modules.get("torch")
    if importer is None or importer not in sys.modules or torch is None:
        return False
    code = getattr(current, "__code__", None)
    package = os.path.dirname(os.path.realpath(torch.__file__)) + os.sep
    return (getattr(current, "__wrapped__", None) is snapped and code is not None
            and os.path.realpath(code.co_filename).startswith(package))


def _watched(value):
    return callable(value) or isinstance(value, types.ModuleType)


def _namespaces():
    """(label, live namespace) pairs: module dicts and class mappingproxies, read again at each check."""
    for mod_name in _MODULES:
        mod = sys.modules.get(mod_name)
        if mod is not None:
            yield mod_name, vars(mod)
    for mod_name, mod in list(sys.modules.items()):
        if mod_name == "kgo_harness" or mod_name.startswith("kgo_harness."):
            yield mod_name, vars(mod)
            for name, value in list(vars(mod).items()):
                if isinstance(value, type) and getattr(value, "__module__", "") == mod_name:
                    yield f"{mod_name}.{name}", vars(value)
    for mod_name, cls_name in _CLASS_PATHS:
        cls = getattr(sys.modules.get(mod_name), cls_name, None)
        if isinstance(cls, type):
            yield f"{mod_name}.{cls_name}", vars(cls)


class Snapshot:
    """Every watched callable by qualified name, with its code object where it has one; checks read the
    live namespaces, so a check costs one identity comparison per entry."""

    def __init__(self):
        self.entries = []
        for label, ns in _namespaces():
            for name, value in list(ns.items()):
                if label == "torch._C" and not any(k in name for k in _C_TIMING):
                    continue
                if _watched(value):
                    code = value.__code__ if isinstance(value, types.FunctionType) else None
                    self.entries.append((ns, name, value, code, f"{label}.{name}"))
        self.items = len(self.entries)

    def changes(self):
        """Names whose object or code differs from the snapshot (first 10), in a stable order."""
        changed = []
        for ns, name, value, code, label in self.entries:
            cur = ns.get(name)
            if cur is not value and _torch_own_rebind(label, value, cur):
                continue
            if cur is not value or (code is not None and cur.__code__ is not code):
                changed.append(label)
        return sorted(changed)[:10]


def tampering_message(changed, when):
    return (f"the kernel replaced timing or harness primitives {when}: {', '.join(changed)}; "
            "a kernel must not patch the measurement")


def _shared_clocks():
    """{clock name: slack in s} for the clocks one system-wide clock backs (comparable between processes):
    the monotonic ones are exact up to float rounding; the wall clock may be stepped (NTP), so more slack."""
    out = {}
    for name, slack in (("perf_counter", 1e-3), ("monotonic", 1e-3), ("time", 0.5)):
        impl = time.get_clock_info(name).implementation
        if "CLOCK_MONOTONIC" in impl or "CLOCK_REALTIME" in impl:
            out[name] = slack
            out[name + "_ns"] = slack
    return out


SHARED_CLOCKS = _shared_clocks()


def clock_stamp():
    """The shared clocks read now through this process's `time` module as it is bound at the moment, in
    seconds (a reading that is not a number is kept as its repr)."""
    stamp = {}
    mod = sys.modules["time"]
    for name in SHARED_CLOCKS:
        try:
            value = getattr(mod, name)()
            stamp[name] = value / 1e9 if name.endswith("_ns") else float(value)
        except Exception as e:  # a patched clock may raise or return anything
            stamp[name] = repr(e)[:100]
    return stamp


def clock_disagreement(stamp, before, after):
    """A message naming the clocks in `stamp` (the kernel's process) that lie outside [before, after] (the
    judge's own readings just before the request and just after the reply), or None when all agree."""
    if not isinstance(stamp, dict):
        return ("the kernel's process replied without its clock readings; its reply channel was tampered with")
    bad = []
    for name, slack in SHARED_CLOCKS.items():
        got = stamp.get(name)
        lo, hi = before[name] - slack, after[name] + slack
        if not isinstance(got, (int, float)) or isinstance(got, bool) or not math.isfinite(got):
            bad.append(f"time.{name}() returned {got!r}")
        elif not lo <= got <= hi:
            bad.append(f"time.{name}() read {got:.6f} s in the kernel's process while the judge's same clock read "
                       f"{before[name]:.6f}..{after[name]:.6f} s around the request")
    if not bad:
        return None
    return ("the kernel's process reads a clock that disagrees with the judge's: " + "; ".join(bad[:3]) +
            "; a timing primitive was patched (the judge's clock check, outside the kernel's process)")
