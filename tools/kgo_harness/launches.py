"""What a kernel's call ran: Triton kernel launches (compiled and interpreted) and calls into kernels the file
compiles itself (torch.utils.cpp_extension.load_inline/load, cupy RawKernel/RawModule, numba.cuda.jit), counted
by name and by launch shape so the checker knows whether the kernel file's own kernels ran and ran alike whether
observed or timed (installed once per worker, before any kernel module is imported; `watch_source` before each
import); the vendor library symbols looked up through ctypes (an audit hook) or cffi, or called by shared objects
loaded since (linked); and the aten ops torch's profiler saw (profiled; Observer: the window every checked or timed
call of the kernel runs in)."""
import bisect
import collections
import functools
import itertools
import re
import sys

from kgo_harness import linked

_counts = collections.Counter()
_shapes = collections.Counter()   # each launch's name with its grid or argument shapes ("launch shape", below)
_installed = False
_linked = None   # the shared objects mapped since install (linked.Linked)


def install():
    global _installed, _linked
    if _installed:
        return
    sys.addaudithook(_audit)
    _hook_cffi()
    _linked = linked.Linked(linked.installed())
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
            _shapes[f"{name}{_grid(self, args, kwargs)}"] += 1
        return original(self, *args, **kwargs)
    return run


def _grid(fn, args, kwargs):
    """A Triton launch's grid as Triton itself evaluates it (a callable of the launch's named arguments)."""
    grid = kwargs.get("grid")
    if callable(grid):
        try:
            meta = dict(zip(getattr(fn, "arg_names", ()), args))
            meta.update(kwargs)
            grid = grid(meta)
        except Exception:
            return "[?]"
    return list(grid) if isinstance(grid, (tuple, list)) else [grid]


def _tensor_shapes(args):
    return [list(a.shape) for a in args if hasattr(a, "shape") and hasattr(a, "data_ptr")]


# --- kernels the file compiles itself ---------------------------------------------------------------------
_watched = set()
_COMPILERS = {"cpp_extension": re.compile(r"cpp_extension|load_inline"), "cupy": re.compile(r"\bcupy\b"),
              "numba": re.compile(r"\bnumba\b")}


def watch_source(text):
    """Before a module with this source is imported: hooks the compilers it names, so that what it compiles
    counts as its own launches (each hook installed once; nothing is imported that the source does not use)."""
    for name, pattern in _COMPILERS.items():
        if name not in _watched and pattern.search(text or ""):
            try:
                globals()[f"_hook_{name}"]()
            except ImportError:
                continue   # the import in the kernel file will fail with its own message
            _watched.add(name)


def _counted(fn, name):
    @functools.wraps(fn)
    def call(*args, **kwargs):
        _counts[name] += 1
        _shapes[f"{name}{_tensor_shapes(args)}"] += 1
        return fn(*args, **kwargs)
    return call


def count_module(module, origin):
    """Wraps every public callable of a compiled extension module so each call counts as a launch of its own
    kernel (named `function (origin)`). Returns the module."""
    for attr in dir(module):
        value = getattr(module, attr, None)
        if attr.startswith("_") or not callable(value) or isinstance(value, type):
            continue
        try:
            setattr(module, attr, _counted(value, f"{attr} ({origin})"))
        except (AttributeError, TypeError):
            pass
    return module


def _hook_cpp_extension():
    import torch.utils.cpp_extension as ext
    for fname in ("load_inline", "load"):
        original = getattr(ext, fname)
        if getattr(original, "_kgo_counted", False):
            continue

        def loader(*args, _original=original, _fname=fname, **kwargs):
            got = _original(*args, **kwargs)
            return count_module(got, f"cpp_extension.{_fname}") if got is not None and not isinstance(got, str) \
                else got
        loader._kgo_counted = True
        setattr(ext, fname, functools.wraps(original)(loader))


class _CountedKernel:
    """A compiled kernel object (cupy RawKernel, a numba dispatcher) whose launches count."""

    def __init__(self, inner, name):
        self._inner, self._name = inner, name

    def __call__(self, *args, **kwargs):   # cupy: kernel(grid, block, args)
        _counts[self._name] += 1
        _shapes[f"{self._name}{list(args[:2])}"] += 1
        return self._inner(*args, **kwargs)

    def __getitem__(self, config):   # numba: kernel[grid, block](...)
        launch, shape = self._inner[config], f"{self._name}{list(config) if isinstance(config, tuple) else [config]}"

        def call(*args, **kwargs):
            _counts[self._name] += 1
            _shapes[shape] += 1
            return launch(*args, **kwargs)
        return call

    def __getattr__(self, attr):
        return getattr(self._inner, attr)


def _hook_cupy():
    import cupy
    raw_kernel, raw_module = cupy.RawKernel, cupy.RawModule

    def kernel(code, name, *args, **kwargs):
        return _CountedKernel(raw_kernel(code, name, *args, **kwargs), f"{name} (cupy.RawKernel)")

    class Module:
        def __init__(self, *args, **kwargs):
            self._inner = raw_module(*args, **kwargs)

        def get_function(self, name):
            return _CountedKernel(self._inner.get_function(name), f"{name} (cupy.RawModule)")

        def __getattr__(self, attr):
            return getattr(self._inner, attr)
    cupy.RawKernel, cupy.RawModule = kernel, Module


def _hook_numba():
    from numba import cuda
    original = cuda.jit

    def jit(*args, **kwargs):
        if kwargs.get("device"):
            return original(*args, **kwargs)
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return _CountedKernel(original(args[0]), f"{args[0].__name__} (numba.cuda.jit)")
        decorate = original(*args, **kwargs)
        return lambda fn: _CountedKernel(decorate(fn), f"{fn.__name__} (numba.cuda.jit)")
    cuda.jit = jit


# --- vendor libraries reached through ctypes ----------------------------------------------------------------
# A call into one of these runs the library's GPU kernels, with no aten op and no launch of the file's own between.
# Known by the symbols' names (cuBLAS's start with cublas, ...), whichever library handle they are looked up in;
# a symbol lookup of its own through ctypes (dlsym) hides what it finds, and counts too.
VENDOR_SYMBOLS = re.compile(rf"^({'|'.join(linked.LIBRARIES)}|dl(v)?sym$)")
_library = collections.Counter()   # vendor symbol -> lookups through ctypes in this process


def _audit(event, args):
    """Python's audit hook (never removed once added): every symbol ctypes looks up (an attribute or item of a
    loaded library, by name or by handle) is recorded when it is a vendor library's (VENDOR_SYMBOLS). CPython raises
    no event per foreign call, so a lookup, however early, is what shows a library in use."""
    if event in ("ctypes.dlsym", "ctypes.dlsym/handle"):
        _looked_up(args[1] if len(args) > 1 else None)


def _looked_up(name):
    if isinstance(name, str) and VENDOR_SYMBOLS.match(name):
        _library[name] += 1


def _hook_cffi():
    """cffi's ABI mode (ffi.dlopen) finds a library's functions and variables by name in its C backend, unseen by
    the audit hook: the backend's libraries are wrapped so that each name looked up is recorded as ctypes' are."""
    try:
        import _cffi_backend as backend
    except ImportError:
        return
    load = backend.load_library

    def load_library(*args, **kwargs):
        return _CffiLibrary(load(*args, **kwargs))
    backend.load_library = load_library


class _CffiLibrary:
    def __init__(self, lib):
        self._lib = lib

    def load_function(self, btype, name):
        _looked_up(name)
        return self._lib.load_function(btype, name)

    def read_variable(self, btype, name):
        _looked_up(name)
        return self._lib.read_variable(btype, name)

    def write_variable(self, btype, name, value):
        _looked_up(name)
        return self._lib.write_variable(btype, name, value)

    def __getattr__(self, attr):
        return getattr(self._lib, attr)


def libraries():
    """The vendor symbols this process has looked up through ctypes (VENDOR_SYMBOLS) with their lookup counts, and
    those that shared objects loaded since `install` call (linked.Linked: a compiled extension or solve() linking a
    vendor library), with the number of such objects."""
    found = dict(_library)
    for symbol, objects in (_linked.vendor_symbols() if _linked is not None else {}).items():
        found[symbol] = found.get(symbol, 0) + objects
    return found


def library_name(symbol):
    """The library a vendor symbol belongs to, as --allow-op names it: cublasSgemm_v2 -> cublas."""
    found = VENDOR_SYMBOLS.match(symbol)
    return found.group(1) if found else symbol


def reset():
    _counts.clear()
    _shapes.clear()
    _library.clear()


def snapshot():
    return dict(_counts)


def shapes():
    """Every own launch so far by its launch shape: the name with a Triton launch's grid, a cupy kernel's grid and
    block, a numba launch's configuration, or the tensor shapes passed to a compiled extension's function. Calls of
    one problem shape launch the same ones however they are observed; a decoy launched in their place does not."""
    return dict(_shapes)


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


# --- the observer of every kernel call a verdict rests on ---------------------------------------------------
MARK, REPLAY = "kgo::kernel_call", "kgo::graph_replay"
_CPU = None


def _device_cpu():
    global _CPU
    if _CPU is None:
        from torch.autograd import DeviceType
        _CPU = DeviceType.CPU
    return _CPU


def _mark(name):
    """A profiler range around one call: torch's C++ fast form where present (about 1 us against 10-40 us for
    record_function's Python one on the build machine), else record_function."""
    import torch
    fast = getattr(getattr(torch._C, "_profiler", None), "_RecordFunctionFast", None)
    if fast is not None:
        return fast(name)
    from torch.autograd.profiler import record_function
    return record_function(name)


class Session:
    """torch's autograd profiler, started once and shared by the observers of several requests (a check's cases:
    starting and stopping it per case cost about 1.5 ms a case on an H200 machine, 12 cases a check). Each
    observer's calls carry its own mark, so its report is of its own calls; reports are read once the session has
    stopped (`stop`). A session that cannot start or stop raises, as an observer does."""

    def __init__(self):
        from torch.autograd import profiler
        try:   # every thread's ops: work a call hands to another thread is the call's
            from torch._C._profiler import _ExperimentalConfig
            config = {"experimental_config": _ExperimentalConfig(profile_all_threads=True)}
        except (ImportError, TypeError):
            config = {}
        self.prof = profiler.profile(use_device=None, **config)
        self.prof.__enter__()
        self.running, self.cpu, self.marked, self.serial = True, None, None, 0

    def stop(self):
        if self.running:
            self.running = False
            self.prof.__exit__(None, None, None)

    def events(self):
        """The session's CPU events (read_events), read once; None before `stop`."""
        if self.running:
            return None
        if self.cpu is None:
            self.cpu = read_events(self.prof.kineto_results.events())
        return self.cpu

    def by_mark(self):
        """{range name: [ranges, aten ops that began inside one of them]} over the session's events (None before
        `stop`). An op is a name's when it began inside any of that name's ranges: a range the kernel opens inside
        a call, under any name, hides none of the call's ops from it."""
        cpu = self.events()
        if cpu is None:
            return None
        if self.marked is None:
            ranges = collections.defaultdict(list)
            for name, _, start, end in cpu:
                if name.startswith(MARK) or name.startswith(REPLAY):
                    ranges[name].append((start, end))
            self.marked = {name: [len(r), set()] for name, r in ranges.items()}
            spans = sorted((a, b, name) for name, r in ranges.items() for a, b in _union(r))
            starts = [a for a, _, _ in spans]
            reach = list(itertools.accumulate((b for _, b, _ in spans), max))   # the latest end up to each span
            for name, _, start, _ in cpu:
                if not name.startswith("aten::"):
                    continue
                i = bisect.bisect_right(starts, start) - 1
                while i >= 0 and reach[i] >= start:   # honest calls: one span looked at, as they do not overlap
                    if spans[i][1] >= start:
                        self.marked[spans[i][2]][1].add(name)
                    i -= 1
        return self.marked


def _union(ranges):
    """The sorted, merged union of (start, end) ranges."""
    out = []
    for a, b in sorted(ranges):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


class Observer:
    """One observation window, the same for every kernel call whose outputs are checked or whose time the judge
    takes (a checked case's runs, a timed batch's calls; PROTOCOL.md "Delegation"): torch's autograd profiler on
    for the window (one start per request, not per call; or a `session` shared by several requests' windows, read
    when it stops), each call marked by `call` (a CUDA graph's replay by `replay`), so the harness's own work in the
    window (poison, fresh inputs, digests) is not the kernel's. It records the CPU side only (the ops and their
    threads): CUDA activity tracing cost 40 to 700 us per call on an H200 (which the judge's clock then counts as the
    kernel's) and its stop synchronizes the device (which hides work left on a side stream). The report (`report`)
    gives, of the marked calls only: the aten ops and the file's own launches per call. A window that cannot start
    or stop raises: the caller's request fails, and with it the verdict."""

    def __init__(self, on=True, profiled=True, session=None):
        self.on, self.profiled, self.own_calls, self.replays = on, profiled, [], 0
        self.session, self.owned, self.after = session, None, None
        self.mark, self.replay_mark = MARK, REPLAY
        if session is not None:   # this window's own marks among the session's
            session.serial += 1
            self.mark, self.replay_mark = f"{MARK}#{session.serial}", f"{REPLAY}#{session.serial}"

    def __enter__(self):
        self.before, self.shapes_before = snapshot(), shapes()
        if self.on and self.profiled and self.session is None:
            self.session = self.owned = Session()   # a window of its own is a session of one window
        return self

    def __exit__(self, *exc):
        self.after = (snapshot(), shapes())
        if self.owned is not None:
            self.owned.stop()
        return False

    def call(self, fn, *args):
        before = total()
        try:
            with _mark(self.mark):
                return fn(*args)
        finally:
            self.own_calls.append(total() - before)

    def replay(self, fn):
        self.replays += 1
        with _mark(self.replay_mark):
            return fn()

    def report(self):
        """{calls, own_calls, replays, marks, aten, own: {name: launches}, launched: {launch shape: launches},
        libraries: {vendor symbol: lookups and linking objects since the process began (libraries)}, profiled} (a
        tally's: marks None, aten empty), or None where torch's events cannot be read (the observation is missing,
        which fails the verdict; the reason goes to stderr; a shared session not stopped yet). Read from the
        profiler's raw events (torch's FunctionEvent tree costs about 5 times as much): an op is a call's when it
        began inside a call's mark, on any thread (work handed to a thread pool is the call's)."""
        now, now_shapes = self.after or (snapshot(), shapes())
        own, launched = since(self.before, now), since(self.shapes_before, now_shapes)
        seen = {"own": own, "launched": launched, "libraries": libraries()}   # lookups: the whole process's
        if self.on and not self.profiled:
            return {"calls": len(self.own_calls), "own_calls": list(self.own_calls), "replays": self.replays,
                    "marks": None, "aten": [], **seen, "profiled": False}
        try:
            got = self.session.by_mark() if self.session is not None else None
        except (AttributeError, TypeError) as e:   # a torch whose event API this reader does not know
            import sys
            import torch
            sys.stderr.write(f"kgo observer: torch {torch.__version__}'s profiler events unreadable ({e}); the "
                             "calls count as not observed\n")
            return None
        if got is None:
            return None
        calls, replays = (got.get(m, [0, set()]) for m in (self.mark, self.replay_mark))
        return {"calls": len(self.own_calls), "own_calls": list(self.own_calls), "replays": self.replays,
                "marks": calls[0] + replays[0], "aten": sorted(calls[1] | replays[1]), **seen, "profiled": True}


def since(before, now):
    """The counts of `now` above those of `before` (snapshot, shapes)."""
    return {k: v - before.get(k, 0) for k, v in now.items() if v > before.get(k, 0)}


def read_events(events):
    """torch's raw profiler events (_ProfilerResult.events()) as PyTorch's own CPU events [(name, correlation id,
    start ns, end ns)] (ops and annotations). Events of a runtime (the CUDA runtime's, should a profiler in the
    process trace it) are CPU events too, with ids of another count that must not be read as ops'. Where the event
    has activity_type() (torch 2.15; not 2.11) they are told apart by it; else as torch 2.11's own parser does: only
    the runtime's events are linked to an op (linked_correlation_id() > 0), PyTorch's own never are (PROTOCOL.md
    "Delegation", torch versions). Device events are not read. Raises AttributeError/TypeError where an event lacks
    what is read."""
    events = list(events)
    kind = _device_cpu()
    typed = bool(events) and hasattr(events[0], "activity_type")
    cpu = []
    for e in events:
        if e.device_type() != kind:
            continue
        if (e.activity_type() in ("cpu_op", "user_annotation")) if typed else e.linked_correlation_id() == 0:
            start = e.start_ns()
            cpu.append((e.name(), e.correlation_id(), start, start + e.duration_ns()))
    return cpu
