"""The kernel's process: the only process that imports the kernel under test. It makes inputs (the same
bytes the judge makes from the same seeds; setup()'s inputs are shipped to the judge), runs and times the
kernel, and hands outputs back as bytes (wire.py). It never holds a reference output or a comparison.
Requests and replies are JSON lines on two pipes; stdout is redirected to stderr."""
import contextlib
import json
import os
import sys
import time
import traceback

SLEEP_CYCLES = 4_000_000  # a delay on the caller's stream before inputs appear (GPU cycles, ~2 ms: more than
# the host's time to the kernel's launch under the observer, 0.5 ms was not on an H200)
# A quarter of it where the call's last run on that shape took the host under SHORT_DELAY_HOST_US to return (the
# delay must outlast the host's time to the launch; at an idle GPU's lower clocks the cycles last longer).
SHORT_DELAY_HOST_US = 100.0


class Hack(Exception):
    """The kernel tampered with its measurement (verdict REWARD_HACK)."""


class KernelSide:
    def __init__(self, folder, snapshot):
        import torch
        self.torch = torch
        self.folder = folder
        self.snapshot = snapshot
        self.changes = type(snapshot).changes   # taken before the kernel runs: an instance patch is not called
        self.problem = None
        self.cases = {}
        self.storage = {}
        self.warmed = set()
        self.host_us = {}   # {shape: the host's time for the last checked call to return} (execute)
        self.memory_cap_mb = None
        self.narrowed = False
        self.memory_limit_mb = self.memory_device = None
        self.window = None   # the timed batches' observer window (batch, observed)
        self.stash = []      # copies of the checked calls' outputs of a size's batches (batch_outputs)
        self.session = None  # the check's shared observer session and its windows by case key (execute, observed_cases)
        self.session_windows = {}

    def verify(self, when):
        from kgo_harness.cell import guard
        changed = self.changes(self.snapshot)
        if changed:
            raise Hack(guard.tampering_message(changed, when))

    def cap_text(self):
        """The memory cap in words, naming the flag that sets it."""
        if self.memory_cap_mb is None:
            return "no cap applied"
        if self.memory_device == "cpu":
            return (f"cap: {self.memory_limit_mb or CPU_EXTRA_MB} MiB beyond its size at start, {self.memory_cap_mb} MiB of address "
                    "space; kgo --memory-limit MIB sets it")
        default = "" if self.memory_limit_mb else f", the default {GPU_DEFAULT_SHARE:.0%} of the device's memory"
        return f"cap: {self.memory_cap_mb} MiB of GPU memory{default}; kgo --memory-limit MIB sets it"

    def sync(self):
        if self.problem.device == "cuda":
            self.torch.cuda.synchronize()

    # --- requests --------------------------------------------------------------------------------
    def load(self, msg):
        from kgo_harness.cell import confine
        from kgo_harness.formats.contracts import Problem
        req = msg["request"]
        places = msg.get("cell") or {}
        if places.get("cache") and not self.narrowed:
            # Before the kernel's code is imported: from here on this process writes only its folder and its
            # identity's compile cache (a second Landlock layer; the first allowed every identity's cache). Once:
            # a warm harness loads the same identity again for each request, and Landlock stacks at most 16 layers.
            confine.narrow(self.folder, places["cache"])
            self.narrowed = True
            confine.use_places(self.folder, places["cache"])
        if self.memory_cap_mb is None:
            self.memory_limit_mb, self.memory_device = req.get("memory_limit_mb"), req["device"]
            self.memory_cap_mb = limit_memory(self.memory_limit_mb or CPU_EXTRA_MB) if req["device"] == "cpu" \
                else limit_gpu_memory(self.memory_limit_mb)
        self.problem = Problem(req, msg.get("role", "kernel"))
        self.verify("while being imported")
        p = self.problem
        folder = str(p.kernel_path.parent) + os.sep
        local = sorted({real for real in map(_real_file, list(sys.modules.values())) if real and real.startswith(folder)})
        # Kernel facts the judge needs without running the kernel's code (formats.py adapters add theirs).
        from kgo_harness.formats import cpu_honesty
        return {"fn_params": getattr(p, "fn_params", None), "entry": p.entry, "contract": p.contract,
                "compile_s": p.compile_s, "local_files": local, "cpu_notes": cpu_honesty.notes(),
                **getattr(p, "facts", {})}

    def provide(self, msg):
        """Inputs the judge made for one case (inputs_from "judge"), kept until the case is built."""
        p = self.problem
        shape = tuple(msg["shape"])
        # The judge works one shape at a time: inputs of another shape are done with (and may be GiBs).
        for k in [k for k in p.provided if k[0] != shape]:
            del p.provided[k]
        if len(p.provided) >= 64:
            p.provided.pop(next(iter(p.provided)))
        p.provided[(shape, int(msg["seed"]), int(msg["trial"]))] = {
            "args": _args(self.folder, msg, p.device), "extra": msg.get("extra") or {}}
        return {}

    def reference(self, msg):
        """Role "baseline": the reference of the kernel's own file on the inputs the judge sends."""
        from kgo_harness import wire
        wire.release()
        outs = self.problem.run_entry(_args(self.folder, msg, self.problem.device))
        self.verify("while running the reference")
        return {"outputs": wire.send(self.folder, _named(None, outs), bool(msg.get("ipc")))}

    def case(self, msg):
        from kgo_harness import wire
        shape, key = list(msg["shape"]), msg["key"]
        # Only the newest case is run again (by key): earlier ones, their inputs and the outputs held for the
        # judge are dropped, so a check's memory stays about one case's size whatever its case count.
        self.cases.clear()
        wire.release()
        case = self.problem.case(shape, msg["seed"], msg["trial"])
        self.problem.provided.pop((tuple(shape), int(msg["seed"]), int(msg["trial"])), None)
        self._reuse_storage(case, tuple(shape))
        self.cases[key] = case
        reply = {"output_names": list(case.output_names)}
        if self.problem.inputs_from == "kernel":
            items = list(case.inputs.items()) if isinstance(getattr(case, "inputs", None), dict) else \
                [(f"arg{i}", a) for i, a in enumerate(case.args)]
            reply["inputs"] = wire.send(self.folder, [(k, v) for k, v in items if type(v) is self.torch.Tensor])
            reply["scalars"] = {k: v for k, v in items if isinstance(v, (int, float, bool, str))}
        return reply

    def _reuse_storage(self, case, shape):
        """Inputs of a shape's later cases land in the first case's buffers: the same addresses with new
        values, so a result cached by pointer is stale."""
        fresh = case.input_tensors()
        for other in [k for k in self.storage if k != shape]:
            del self.storage[other]
        old = self.storage.get(shape)
        if old is None or set(old) != set(fresh):
            self.storage[shape] = fresh
            return
        for name, t in fresh.items():
            prev = old[name]
            if prev.shape == t.shape and prev.dtype == t.dtype and prev.device == t.device:
                prev.copy_(t)
                _substitute(case, name, t, prev)

    def execute(self, msg):
        """A checked case's runs, every one of them in the observer's window (launches.Observer): the calls whose
        outputs the judge checks are the calls it observes, so no call of a verdict runs unobserved."""
        from kgo_harness import launches, wire
        wire.release()
        ipc = bool(msg.get("ipc"))
        case = self.cases[msg["key"]]
        torch = self.torch
        cuda = self.problem.device == "cuda"
        start = time.perf_counter()
        synced, runs = None, []
        observe = bool(msg.get("observe", True))
        shared = self._session() if observe and msg.get("shared_window") else None
        with launches.Observer(on=observe, session=shared) as ob:
            if cuda and (msg.get("synced") or tuple(case.shape) not in self.warmed):
                # Compile first: a JIT compile inside the ordered run would outlast the input delay.
                self.warmed.add(tuple(case.shape))
                synced = execute_synced(case, ob)
                if not msg.get("synced"):
                    synced = None   # a compile run: its outputs are not needed beside the runs' (a large case's size)
            if not msg.get("synced"):
                before = {k: t.clone() for k, t in case.input_tensors().items()}
                for k in range(msg.get("repeat", 1)):
                    # The inputs arrive late in the first run only (the side-stream test); a repeat: determinism.
                    runs.append(execute(case, cuda, torch, delayed=k == 0, observer=ob, originals=before,
                                        host_us=self.host_us))
        seconds = time.perf_counter() - start   # the runs' time, not the report's
        if shared is not None:   # reported with the check's other cases (observed_cases)
            self.session_windows.setdefault(str(msg["key"]), []).append(ob)
            observed = None
        else:
            observed = self._observed(ob)
        if msg.get("synced"):
            return {"outputs": wire.send(self.folder, _named(case, synced), ipc), "seconds": 0.0, "observed": observed}
        changed = [k for k, t in case.input_tensors().items() if not _same_bits(t, before[k])]
        self.verify("during the run")
        return {"outputs": [wire.send(self.folder, _named(case, r), ipc) for r in runs], "changed_inputs": changed,
                "seconds": seconds, "observed": observed}

    def _observed(self, ob):
        self.verify("while observed")
        return ob.report() if ob.on else None

    def _session(self):
        """The check's shared observer session (launches.Session), started by its first observed case."""
        from kgo_harness import launches
        if self.session is None:
            self.session, self.session_windows = launches.Session(), {}
        return self.session

    def close_session(self):
        """Stops the check's shared session, if one runs; its windows stay readable until the next one. Called before
        every request that is not part of a check's cases, so a session never covers other calls."""
        session, self.session = self.session, None
        if session is not None:
            session.stop()

    def observed_cases(self, msg):
        """What the shared session saw of each case's runs since it started: {case key: [report per request]}."""
        self.close_session()
        self.verify("while observed")
        got, self.session_windows = self.session_windows, {}
        return {"cases": {key: [ob.report() for ob in obs] for key, obs in got.items()}}

    def resend(self, msg):
        from kgo_harness import wire
        return wire.resend(self.folder, str(msg["file"]))

    def time(self, msg):
        from kgo_harness.cell import bench_kernel
        from kgo_harness import launches, wire
        wire.release()
        with production_settings(self.torch):
            out = bench_kernel.time_shape(self, msg)
        self.verify("during the timed runs")
        cuda = self.problem.device == "cuda"
        # Once more per input set as check runs it, observed: what these calls launch, the timed ones must launch
        # too (check.decoy_at). On a GPU, timed outputs can be right while the work escapes the caller's stream (a
        # buffer the allocator hands back still holds an earlier result): here the inputs arrive late on the
        # caller's stream, outputs poisoned; work not ordered after them reads poison.
        # On the CPU the runs show only what is launched, under the timed calls' settings.
        with launches.Observer() as ob, (contextlib.nullcontext() if cuda else production_settings(self.torch)):
            ordered = [execute(c, cuda, self.torch, observer=ob, host_us=self.host_us) for c in self.timed_cases]
        out["observed"] = self._observed(ob)
        if cuda:
            out["ordered_outputs"] = wire.send(self.folder, [(f"set{r}.out{i}", t) for r, o in enumerate(ordered)
                                                             for i, t in enumerate(o or [])], bool(msg.get("ipc")))
        return out

    def batch(self, msg):
        """One timed batch, which the judge times around this request with its own clock (judge/wallclock.py):
        `rounds` rounds (the judge's number), each giving every timed input set fresh values (generation g of the
        judge's `fresh` number), then calling once per set; every call's outputs are held (timing.kept) for
        `batch_outputs` until the next batch; after a device synchronize, a digest of each call's outputs
        (timing.digests), call r of round g at g * sets + r. In graph mode the rounds are one graph, captured in the
        first batch and replayed after every round's offsets are written (timing.DeviceRolls).
        The calls (the capture's, each replay) run in one tally window (launches.Observer without the profiler: own
        launches per call), opened by the first batch request of a size and closed by `observed`. `sync` false: the
        calls only, no synchronize and no digests (the host's enqueue cost); `empty`: nothing."""
        from kgo_harness import timing
        self.held = None
        ob = self._batch_window()
        if msg.get("empty"):
            if msg.get("sync"):
                self.sync()
            return {}
        rounds, fresh = int(msg.get("rounds") or 1), msg.get("fresh")
        if self.timed_rounds is None:
            self.timed_rounds = timing.Rounds(lambda r: self.window.call(self.timed_call, r), len(self.timed_cases),
                                              rounds, self.timed_fresh.ready() if fresh is not None else None,
                                              self.timed_cases[0], self.timed_mode == "graph")
        if self.timed_rounds.rounds != rounds:
            raise ValueError(f"a size's timed batches asked for {rounds} rounds after {self.timed_rounds.rounds}")
        with production_settings(self.torch):
            outs = self.timed_rounds.run(None if fresh is None else int(fresh), ob.replay)
            if not msg.get("sync", True):
                return {}
            self.sync()
            digests = self.timed_rounds.digests(outs)
        self.held = outs
        return {"digests": digests}

    def _batch_window(self):
        from kgo_harness import launches
        if self.window is None:   # a size's first batch: what an earlier size's batches kept is let go
            self.stash = []
            # A tally of own launches per call, not the profiler: its cost on the batches' harness work (fresh
            # values, digests) would be the kernel's time by the judge's clock (PROTOCOL.md "Delegation").
            self.window = launches.Observer(profiled=False).__enter__()
        return self.window

    def close_window(self):
        """Closes the timed batches' observer window; returns it (None when none was open). Called before every
        request that is not part of the batches, so a window the judge left open never covers other calls."""
        ob, self.window = self.window, None
        if ob is not None:
            self.sync()
            ob.__exit__(None, None, None)
        return ob

    def observed(self, msg):
        """The observer's report of the timed batches since the window opened (launches.Observer.report)."""
        ob = self.close_window()
        return {"observed": self._observed(ob) if ob is not None else None}

    def batch_outputs(self, msg):
        """Keeps a copy of the outputs of the calls `indices` of the last batch (the judge picks them after the
        batch's reply) for `kept_outputs`, in place of the copies kept before; replies the copies' slots. The judge
        fetches and checks them after its last batch, so no work of its own on the GPU comes between two batches."""
        self.verify("during the timed batches")
        self.stash = []
        for j in msg["indices"]:
            got = self.held[int(j)] if self.held is not None else None
            got = list(got) if isinstance(got, (list, tuple)) else ([got] if got is not None else [])
            self.stash.append([t.clone() if isinstance(t, self.torch.Tensor) else t for t in got])
        return {"kept": list(range(len(self.stash)))}

    def kept_outputs(self, msg):
        """The outputs kept in `slots` by `batch_outputs`, named slot<s>.out<i>, in one message; every copy is let go
        after."""
        from kgo_harness import wire
        wire.release()
        named = [(f"slot{s}.out{i}", t) for s in msg["slots"] for i, t in enumerate(self.stash[int(s)])]
        out = {"outputs": wire.send(self.folder, named, bool(msg.get("ipc")))}
        self.stash = []
        return out

    def run_once(self, msg):
        with production_settings(self.torch):
            return self._run_once(msg)

    def _run_once(self, msg):
        from kgo_harness import launches
        torch = self.torch
        req = msg["request"]
        case = self.problem.case(list(req["shapes"][0]), req["seed"], 0)
        cuda = self.problem.device == "cuda"
        for _ in range(req["run_once"]["warmup"]):
            case.run()
        self.sync()
        launches.reset()
        if cuda:
            torch.cuda.nvtx.range_push(req["run_once"]["nvtx"])
        case.run()
        if cuda:
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_pop()
        return {"launches": sorted(launches.snapshot())}


def _args(folder, msg, device):
    """A positional argument list from a judge's message: tensors as `arg<i>` in its file, scalars by index."""
    from kgo_harness import wire
    got = dict(wire.receive(folder, msg["inputs"], device))
    scalars = msg.get("scalars") or {}
    return [got.get(f"arg{i}", scalars.get(str(i))) for i in range(int(msg["count"]))]


def _named(case, outs):
    if outs is None:
        return []
    names = case.output_names if case is not None and len(case.output_names) == len(outs) else \
        [f"out{i}" for i in range(len(outs))]
    return list(zip(names, outs))


def _same_bits(a, b):
    import torch
    a, b = a.detach().contiguous(), b.detach().contiguous()
    return a.shape == b.shape and (a.numel() == 0 or bool(torch.equal(a.reshape(-1).view(torch.uint8),
                                                                      b.reshape(-1).view(torch.uint8))))


def _substitute(case, name, old, new):
    if hasattr(case, "args"):
        case.args = [new if a is old else a for a in case.args]
    for holder in ("inputs", "buffers"):
        d = getattr(case, holder, None)
        if isinstance(d, dict) and d.get(name) is old:
            d[name] = new


def poison(t):
    from kgo_harness.formats.contracts import poison as fill
    fill(t)


_REAL_PATHS = {}


def _real_file(module):
    """The resolved path of a module's file, or None; resolved once per path (a warm process has imported
    about 1,300 modules, and resolving them all on every load cost 0.1 s a request)."""
    path = getattr(module, "__file__", None)
    if not isinstance(path, str):
        return None
    real = _REAL_PATHS.get(path)
    if real is None:
        real = _REAL_PATHS[path] = os.path.realpath(path)
    return real


def triton_fingerprint(triton_dir, version):
    """What Triton's cache key hashes, named by size and modification time (ccache's direct mode): its library and
    the Python files of the folders its key reads. About 3 ms, against the key's 0.4 s."""
    import hashlib
    h = hashlib.sha256(f"{version} {os.path.realpath(triton_dir)}\n".encode())
    for sub in ("_C", "backends", "compiler", "language", "runtime"):
        for folder, dirs, files in os.walk(os.path.join(triton_dir, sub)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                st = os.stat(os.path.join(folder, name))
                h.update(f"{os.path.relpath(folder, triton_dir)}/{name} {st.st_size} {st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def triton_key(stored=None, make=True, store=None):
    """Triton's own cache key: a hash of its compiler's sources and its library that the first compile or cached
    load of every process makes (0.4 s on an H200 host: most of a kernel's first launch in a fresh cell). `stored`
    ({"fingerprint", "key"}, made by a template before: never anything a cell wrote) is used when its fingerprint is
    this Triton's; else the key is made when `make` and written to `store`. Returns the form used or made, or None
    (another Triton, or none: its first compile makes the key, as it did before). A spawned kernel process only
    uses a stored key: made ahead, even on a thread beside torch's import, it delayed that process's start by about
    what it saved (measured on an H200)."""
    try:
        import triton
        from triton.runtime import cache
        fingerprint = triton_fingerprint(os.path.dirname(triton.__file__), triton.__version__)
        if isinstance(stored, dict) and stored.get("fingerprint") == fingerprint and isinstance(stored.get("key"), str):
            _use_key(cache, stored["key"])
            return stored
        if not make:
            return None
        made = {"fingerprint": fingerprint, "key": cache.triton_key()}
    except Exception:
        return None
    if store:
        with contextlib.suppress(OSError):
            tmp = f"{store}.{os.getpid()}"
            with open(tmp, "w") as f:
                json.dump(made, f)
            os.replace(tmp, store)
    return made


def _use_key(cache, key):
    """Triton's key function answers `key` in every module that holds it (Triton's own worker pools do the same)."""
    original = cache.triton_key

    def stored_key():
        return key
    for name, module in list(sys.modules.items()):
        if name.startswith("triton") and getattr(module, "triton_key", None) is original:
            module.triton_key = stored_key


def prepare_template(cache_key=False, stored_key=None, store=None):
    """What each kernel process would otherwise do for itself on every fork, done once in the template (zygote):
    Triton and the harness modules a load imports, launch counting installed, and the resolved paths of every
    module so far; Triton's cache key (triton_key) taken from `stored_key`, else with `cache_key` (a GPU's
    template: the CPU's interpreter never asks for it) made and written to `store`. A fork then pays only for the
    kernel's own imports: about 0.1 s of CPU less per kernel process, and on a GPU 0.4 s less before its first
    launch."""
    from kgo_harness.formats import formats
    from kgo_harness import launches  # noqa: F401 (formats: imported by each load)
    launches.install()
    try:   # a kernel without Triton needs none (launches and the interpreter's mends tolerate its absence too)
        import triton.language  # noqa: F401
        import triton.experimental.gluon  # noqa: F401 (imported by the first launch of a Triton kernel)
    except Exception:
        pass
    if cache_key or stored_key:
        triton_key(stored_key, make=cache_key, store=store)
    for module in list(sys.modules.values()):
        _real_file(module)


def execute(case, cuda, torch, delayed=True, observer=None, originals=None, host_us=None):
    """Runs the kernel once on poisoned outputs; returns the outputs as snapshots taken in stream order. With
    `delayed` (GPU), the inputs are poisoned and get their values back only after a delay on the caller's stream,
    from `originals` ({name: a copy of the input as it is now}) where the caller holds one, else from a clone:
    one copy of the inputs fewer (a 16 GiB input is a KernelBench level-1 size). `observer` (launches.Observer):
    the call runs in its window, marked. `host_us` ({shape: microseconds}): the host's time for the call to return,
    read for the delay (SHORT_DELAY_HOST_US) and updated."""
    case.poison_outputs()
    shape = tuple(case.shape)
    if cuda and delayed:
        staged = [(t, originals[k] if originals is not None else t.clone()) for k, t in case.input_tensors().items()]
        for t, _ in staged:
            poison(t)
        # The poison is complete before the kernel is called; the real values appear only after the delay,
        # and only to work ordered after it on the caller's stream.
        torch.cuda.synchronize()
        short = host_us is not None and host_us.get(shape, SHORT_DELAY_HOST_US) < SHORT_DELAY_HOST_US
        torch.cuda._sleep(SLEEP_CYCLES // 4 if short else SLEEP_CYCLES)
        for t, s in staged:
            t.copy_(s)
    t0 = time.perf_counter()
    raw = observer.call(case.run) if observer is not None else case.run()
    if host_us is not None:
        host_us[shape] = (time.perf_counter() - t0) * 1e6
    snap = None if raw is None else [o.clone() if type(o) is torch.Tensor else o for o in raw]
    if cuda:
        torch.cuda.synchronize()
    return snap


@contextlib.contextmanager
def nan_fill_off(torch):
    """The check's NaN fill of new allocations off inside, restored after."""
    fill = torch.utils.deterministic.fill_uninitialized_memory
    torch.utils.deterministic.fill_uninitialized_memory = False
    try:
        yield
    finally:
        torch.utils.deterministic.fill_uninitialized_memory = fill


@contextlib.contextmanager
def production_settings(torch):
    """Timing and profiling run as the kernel runs in use: the check's deterministic algorithms and NaN fill
    of new allocations (an extra write pass over every output torch.empty makes) are off inside, restored after."""
    det, warn = torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()
    deterministic_algorithms(torch, False)
    try:
        with nan_fill_off(torch):
            yield
    finally:
        deterministic_algorithms(torch, det, warn_only=warn)


def deterministic_algorithms(torch, mode, warn_only=False):
    """torch.use_deterministic_algorithms without its import of torch._inductor.config, which pulls in
    torch._dynamo (about 3.5 s of a cold start on the H200); the inductor setting only concerns
    torch.compile, which the kernel's process does not run for the harness."""
    torch._C._set_deterministic_algorithms(mode, warn_only=warn_only)


def execute_synced(case, observer):
    """The same run with full device synchronization around it (diagnoses missing stream ordering), observed. The
    NaN fill of new allocations is off here: on the caller's stream it would race with side-stream work."""
    import torch
    case.poison_outputs()
    torch.cuda.synchronize()
    with nan_fill_off(torch):
        raw = observer.call(case.run)
    torch.cuda.synchronize()
    return [o.clone() if type(o) is torch.Tensor else o for o in raw] if raw is not None else None


def limit_memory(extra_mb):
    """Caps this process's address space at its current size plus `extra_mb` (CPU only: CUDA reserves
    address space far beyond what it uses). Returns the cap in MiB, or None when not applied."""
    import resource
    import torch
    # Start the intra-op thread pool first: libgomp exits the process (status 1) when it cannot create its
    # threads under the cap, instead of the MemoryError that names it. Four times ATen's grain size (32,768
    # elements) is enough to run both ops on the pool; 4M elements cost each new kernel process 30 ms.
    torch.ones(1 << 17).add_(1).sum()
    with open("/proc/self/status") as f:
        vm_kb = next(int(line.split()[1]) for line in f if line.startswith("VmSize:"))
    cap_mb = vm_kb // 1024 + int(extra_mb)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY and cap_mb * 1024 * 1024 > hard:
        return None
    resource.setrlimit(resource.RLIMIT_AS, (cap_mb * 1024 * 1024, hard))
    return cap_mb


# Default caps when --memory-limit is not given. CPU: address space the kernel's process may add after
# importing torch. GPU: a share of the device's own memory, so the judge's process (inputs, the float64
# reference, the returned outputs) keeps room beside it on any GPU without naming a size here.
CPU_EXTRA_MB = 16384
GPU_DEFAULT_SHARE = 0.5


def gpu_cap_fraction(limit_mb, total_bytes):
    """The share of the device's memory that `limit_mb` MiB is (at most all of it); None: the default share."""
    if limit_mb is None:
        return GPU_DEFAULT_SHARE
    return min(1.0, int(limit_mb) * 2 ** 20 / total_bytes)


def limit_gpu_memory(limit_mb):
    """Caps what this process's CUDA caching allocator may hold at `limit_mb` MiB (memory a kernel takes past
    the allocator, e.g. cudaMalloc through ctypes, is not counted). Returns the cap in MiB."""
    import torch
    dev = torch.cuda.current_device()
    total = torch.cuda.get_device_properties(dev).total_memory
    fraction = gpu_cap_fraction(limit_mb, total)
    torch.cuda.set_per_process_memory_fraction(fraction, dev)
    return round(fraction * total / 2 ** 20)   # the fraction's rounding leaves a few bytes off the MiB asked for


STORED_KEY_VAR = "KGO_TRITON_KEY"   # a spawned kernel process's Triton cache key, as the judge stored it


def _stored_key(text):
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


def main(fd_in, fd_out, folder, device, namespaces=None):
    """The kernel process's life. `namespaces`: those its template's fork entered (confine.enter); None when this
    process was spawned, and enters its cell now, before torch is imported."""
    from kgo_harness.cell import confine
    from kgo_harness import procs
    stored_key = _stored_key(os.environ.pop(STORED_KEY_VAR, None))
    if namespaces is None:
        procs.die_with_parent()
        namespaces = confine.enter(os.getppid(), shim=True)
    # A session of its own: whatever the kernel starts and leaves behind when this process dies (a crash, a
    # timeout's kill) is then a stray the judge ends (remote.Pool.discard), whether it called setsid or not.
    os.setsid()
    try:
        confined = {"namespaces": namespaces, **confine.confine(folder, namespaces)}
        confine.use_places(folder, os.path.join(folder, "cache"))
        confined["writable"] = confine.writable_from_here()
    except confine.Refused as e:
        confined = {"namespaces": namespaces, "refused": str(e)}
    out = os.fdopen(fd_out, "w", buffering=1)
    inp = os.fdopen(fd_in, "r")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    from kgo_harness.cell.guard import clock_stamp

    traced = {"on": False}

    def emit(msg):
        msg["clocks"] = clock_stamp()   # the judge holds these against its own clock (guard.clock_disagreement)
        if traced["on"]:
            msg["mem"] = procs.memory_now()
        out.write(json.dumps(msg, default=str) + "\n")
        out.flush()
    procs.prime_cuda(device)   # made in the cell, after it is entered
    try:
        import torch
        from kgo_harness.cell import bench_kernel, guard
        from kgo_harness.formats import contracts
        from kgo_harness import launches, lazy, wire  # noqa: F401 (watched by guard)
        launches.install()
        deterministic_algorithms(torch, True, warn_only=True)
        # New allocations are NaN-filled: an output the kernel allocates but never fully writes shows up.
        torch.utils.deterministic.fill_uninitialized_memory = True
        if device == "cuda" and torch.cuda.is_available():
            # A spare cell is ready for any identity: CUDA's context made, Triton and the modules a load imports
            # imported (what the template does once on the CPU), before the tamper snapshot.
            torch.zeros(1, device="cuda").add_(1)
            prepare_template(stored_key=stored_key)
        lazy.resolve()   # the formats' lazily imported torch in place before the snapshot of what it watches
        snapshot = guard.Snapshot()
    except Exception as e:
        emit({"fatal": f"cannot import torch/triton in the kernel's process: {type(e).__name__}: {e}"})
        os._exit(4)
    side = KernelSide(folder, snapshot)
    emit({"ready": True, "pid": os.getpid(), "cell": confined})
    for line in inp:
        msg = json.loads(line)
        op = msg.get("op")
        traced["on"] = bool(msg.get("trace_memory"))
        try:
            if op not in ("batch", "batch_outputs", "kept_outputs", "observed"):
                side.close_window()
            if op not in ("case", "provide", "execute", "resend", "observed_cases"):
                side.close_session()
            emit({"ok": getattr(side, op)(msg)})
        except Hack as h:
            emit({"hack": str(h)})
        except MemoryError:
            emit({"memory": f"the kernel's process ran out of memory ({side.cap_text()})"})
        except Exception as e:
            from kgo_harness.formats.contracts import LoadError
            text = f"{type(e).__name__}: {e}"
            if type(e).__name__ == "OutOfMemoryError":
                emit({"memory": f"the kernel's process ran out of GPU memory ({side.cap_text()}; {text[:300]})"})
                continue
            if "can't allocate memory" in text or "DefaultCPUAllocator" in text:
                emit({"memory": f"the kernel's process ran out of memory ({side.cap_text()}; {text[:200]})"})
                continue
            emit({"error": text[:2000] if not isinstance(e, LoadError) else str(e)[:2000],
                  "load_error": isinstance(e, LoadError), "culprit": getattr(e, "culprit", None),
                  "needs_gpu": bool(getattr(e, "needs_gpu", False)), "trace": traceback.format_exc()[-3000:]})
    os._exit(0)
