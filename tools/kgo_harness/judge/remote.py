"""The judge's side of the process boundary: the kernel's process (kernel_worker.py), started fresh for
every (kernel, reference, local imports, workspace) identity and never reused for another; spares started
ahead wait so that a new identity does not pay the start. Replies are JSON, tensors
come as bytes (wire.py); nothing the kernel's process sends is executed or unpickled."""
import ast
import collections
import contextlib
import hashlib
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import time

from kgo_harness.cell import confine, kernel_worker
from kgo_harness.judge import cellfs
from kgo_harness import memo, procs

ENTRY = pathlib.Path(__file__).resolve().parents[1]  # the harness package folder: Python runs its __main__.py


# Seconds the judge spent waiting on kernel processes in this request, by request op ("start": their start-up
# beyond the judge's own): where a check's time goes, reported in the result's timing as kernel_<op>_s.
SECONDS = collections.defaultdict(float)


class KernelDied(Exception):
    """The kernel's process exited (crash, memory cap, os._exit); verdict CRASH."""


class KernelOutOfMemory(KernelDied):
    """The kernel's process reported running out of memory (its cap or the device's); verdict CRASH unless the judge
    finds the device's memory held by other processes (envinfo.memory_held_by_others)."""


class KernelHack(Exception):
    """The kernel's process reported tampering with the measurement; verdict REWARD_HACK."""


class KernelError(Exception):
    def __init__(self, text, load_error, trace=None, culprit=None, needs_gpu=False):
        super().__init__(text)
        self.load_error = load_error
        self.trace = trace
        self.culprit = culprit
        self.needs_gpu = needs_gpu


class KernelProcess:
    def __init__(self, device, template=None):
        """A fresh kernel process in a cell of its own (cell.py): forked by `template` (zygote.Template) when given
        and able, else spawned."""
        self.device = device
        self.cell_folder, self.folder = cellfs.new_folder()
        to_kernel_r, to_kernel_w = os.pipe()
        from_kernel_r, from_kernel_w = os.pipe()
        self.proc = None
        if template is not None:
            try:
                self.proc = template.fork(to_kernel_r, from_kernel_w, self.folder)
            except OSError:
                self.proc = None
        self.started = "forked" if self.proc is not None else "spawned"
        if self.proc is None:
            env = {**procs.device_env(device), **cell_environment(self.folder)}
            stored = cellfs.stored_triton_key() if device == "cuda" else None
            if stored:
                env[kernel_worker.STORED_KEY_VAR] = json.dumps(stored)
            self.proc = subprocess.Popen(
                [sys.executable, "-I", str(ENTRY), "__kernel__", str(to_kernel_r), str(from_kernel_w), self.folder,
                 device], stdin=subprocess.DEVNULL, pass_fds=(to_kernel_r, from_kernel_w), env=env)
        os.close(to_kernel_r)
        os.close(from_kernel_w)
        self.out = os.fdopen(to_kernel_w, "w", buffering=1)
        self.inp = os.fdopen(from_kernel_r, "r")
        self.identity = None
        self.compile_key = None   # whose compile cache it writes (compile_key)
        self.ready = False
        self.info = None
        self.cell = None      # what the kernel process reported of its confinement before any kernel code ran
        self.bound = None     # (the request it was bound to, the cell's version of it)
        self.helper = None   # a second process for the same identity (Pool.helper)

    def cell_request(self, req):
        """The request as the cell sees it: the kernel (and a reference outside its folder) as read-only copies in
        the cell, compiled objects in the identity's own cache. The files are copied once per process."""
        if self.bound is not None and self.bound[0] is req:
            return self.bound[1]
        extra = [req["reference"]] if req.get("reference") else []
        kernel = cellfs.copy_in(self.cell_folder, req["kernel"], extra)
        inner = dict(req)
        inner["kernel"] = str(kernel)
        if req.get("reference"):
            inner["reference"] = str(cellfs.inside_path(self.cell_folder, req["kernel"], req["reference"]))
        inner["cache_dir"] = cellfs.identity_cache(self.compile_key or "none")
        if req.get("command") != "run-once":
            inner["seed"] = 0   # each case's seed comes with the case: the cell cannot prepare answers at its load
        self.bound = (req, inner)
        return inner

    def outside(self, req, paths):
        """Workspace paths of the copies a cell names (its report of the files it imported)."""
        return [o for o in (cellfs.outside_path(self.cell_folder, req["kernel"], p) for p in paths) if o]

    def _read(self):
        line = self.inp.readline()
        if not line:
            raise KernelDied(self.exit_description())
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            raise KernelDied("the kernel's process wrote a malformed reply")
        if not isinstance(msg, dict):
            raise KernelDied("the kernel's process wrote a malformed reply")
        return msg

    def wait_ready(self):
        if not self.ready:
            start = time.perf_counter()
            try:
                msg = self._read()
            finally:
                SECONDS["start"] += time.perf_counter() - start
            if "fatal" in msg:
                raise RuntimeError(f"the kernel's process could not start: {msg['fatal']}")
            self.cell = msg.get("cell") if isinstance(msg.get("cell"), dict) else {}
            self.ready = True

    def call(self, op, **fields):
        return self.begin(op, **fields)()

    def begin(self, op, **fields):
        """Sends one request and returns a function that waits for its reply and returns what `call` returns
        (or raises what it raises): the judge does its own work while the kernel's process runs."""
        from kgo_harness.cell import guard
        self.wait_ready()
        if isinstance(fields.get("request"), dict):
            fields = {**fields, "request": self.cell_request(fields["request"]),
                      "cell": {"cache": cellfs.identity_cache(self.compile_key or "none")}}
        before = guard.clock_stamp()
        if procs.memtrace_file():
            fields = {**fields, "trace_memory": True}
        try:
            self.out.write(json.dumps({"op": op, **fields}) + "\n")
            self.out.flush()
        except (BrokenPipeError, OSError):
            raise KernelDied(self.exit_description())

        def finish():
            start = time.perf_counter()
            try:
                msg = self._read()
                if procs.memtrace_file():
                    procs.trace_memory(f"{op} cell={msg.get('mem')}")
                return self._reply(guard, msg, before)
            finally:
                SECONDS[op] += time.perf_counter() - start
        return finish

    def _reply(self, guard, msg, before):
        tampered = guard.clock_disagreement(msg.get("clocks"), before, guard.clock_stamp())
        if tampered:
            raise KernelHack(tampered)
        if "ok" in msg and isinstance(msg["ok"], dict):
            return msg["ok"]
        if "hack" in msg:
            raise KernelHack(str(msg["hack"])[:2000])
        if "memory" in msg:
            raise KernelOutOfMemory(str(msg["memory"])[:500])
        culprit = msg.get("culprit")
        raise KernelError(str(msg.get("error", "the kernel's process failed"))[:2000], bool(msg.get("load_error")),
                          str(msg.get("trace", ""))[-3000:], culprit if isinstance(culprit, str) else None,
                          bool(msg.get("needs_gpu")))

    def exit_description(self):
        try:
            rc = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "the kernel's process stopped answering"
        sig = confine.signal_of(rc, bool((self.cell or {}).get("namespaces")))
        if sig is not None:
            import signal
            try:
                return f"the kernel's process died from {signal.Signals(sig).name}"
            except ValueError:
                return f"the kernel's process died from signal {sig}"
        return f"the kernel's process exited with status {rc}"

    def close(self):
        if self.helper is not None:
            self.helper.close()
            self.helper = None
        procs.kill_tree(owner=self.proc.pid)
        try:
            self.proc.kill()
        except ProcessLookupError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        for f in (self.out, self.inp):
            try:
                f.close()
            except OSError:
                pass
        cellfs.remove(self.cell_folder)


def cell_environment(rw):
    """The environment a kernel process starts with: its writes go to its own folder until its identity's cache is
    known."""
    return {**confine.environment(rw, os.path.join(rw, "cache")), **cell_places()}


def cell_places():
    """Where every cell keeps its compile caches (KGO_CELL_CACHE). A cell reads only its own folder of this judge's
    root (confine.read_paths)."""
    return {"KGO_CELL_CACHE": cellfs.cache_root()}


def cell_summary(reported, unconfined):
    """(the result's `cell`, a refusal message or None): what confined the kernel process, from its own report made
    before any kernel code ran. A kernel runs unconfined only when the request says so (kgo --unconfined)."""
    reported = reported or {}
    namespaces = list(reported.get("namespaces") or [])
    landlock = reported.get("landlock")
    layers = (["namespaces"] if "pid" in namespaces else []) + (["landlock"] if landlock else [])
    summary = {"confinement": "+".join(layers) or "none", "namespaces": namespaces, "landlock_abi": landlock,
               "user": reported.get("user"), "unconfined": unconfined}
    why = None
    if reported.get("refused"):
        why = f"the kernel's cell could not be built: {reported['refused']}"
    elif not layers:
        why = "this machine allows neither namespaces nor Landlock for the kernel's cell"
    elif reported.get("writable"):
        why = ("from inside the kernel's cell these folders are writable, so a kernel could plant code that later "
               f"judges run: {', '.join(reported['writable'])}; make them read-only for the cell")
    if why and not unconfined:
        return summary, (f"{why}; kgo refuses to judge a kernel it cannot confine. Run on a machine with user "
                         "namespaces or Landlock (Linux 5.13+), or pass --unconfined to proceed knowingly "
                         "(recorded with the verdict)")
    if why:
        summary["confinement"] = "none (unconfined)"
    return summary, None


def local_imports(kernel_path):
    """Files next to the kernel (and below its folder) that it imports, followed transitively by reading
    `import` statements, or `#include "..."` for CUDA sources (no code is run); a kernel's own report of
    what it imported is added later."""
    root = pathlib.Path(kernel_path).resolve().parent
    seen, todo = set(), [pathlib.Path(kernel_path).resolve()]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        if path.suffix in (".cu", ".cuh", ".h", ".hpp", ".cuh"):
            text = path.read_text(errors="replace") if path.is_file() else ""
            for name in re.findall(r'^\s*#\s*include\s*"([^"]+)"', text, re.M):
                cand = (path.parent / name).resolve()
                if cand.is_file() and str(cand).startswith(str(root) + os.sep):
                    todo.append(cand)
            continue
        if path.suffix != ".py":
            continue
        try:
            names = _imported_names(path.read_text(errors="replace"))
        except OSError:
            continue
        for name in names:
            parts = [p for p in name.split(".") if p]
            if not parts:
                continue
            for cand in (root.joinpath(*parts).with_suffix(".py"), root.joinpath(*parts, "__init__.py")):
                if cand.is_file():
                    todo.append(cand.resolve())
    return sorted(str(p) for p in seen)


_IMPORTED = memo.Memo(256)


def _imported_names(text):
    """The module names a Python source's `import` statements name (empty if it does not parse), kept by
    content: a warm harness reads the same kernel three times a request."""
    key = hashlib.sha256(text.encode()).digest()

    def parse():
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            tree = None
        names = []
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.Import):
                names += [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                names += [base] + [f"{base}.{a.name}" if base else a.name for a in node.names]
        return names
    return _IMPORTED.get(key, parse)


def sources(req, extra=()):
    """[{path, sha256}] of the kernel, ref.py, the problem file and the kernel's local imports: what a stamp
    covers."""
    files = set(local_imports(req["kernel"])) | {str(pathlib.Path(req["kernel"]).resolve())} | set(extra)
    for key in ("reference", "problem"):
        if req.get(key):
            files.add(str(pathlib.Path(req[key]).resolve()))
    out = []
    for f in sorted(files):
        try:
            out.append({"path": f, "sha256": hashlib.sha256(pathlib.Path(f).read_bytes()).hexdigest()})
        except OSError:
            continue
    return out


def rewritten(before, after):
    """A message naming the sources whose bytes changed between two `sources` lists, else None."""
    old = {s["path"]: s["sha256"] for s in before}
    changed = [s["path"] for s in after if s["path"] in old and old[s["path"]] != s["sha256"]]
    gone = [p for p in old if p not in {s["path"] for s in after}]
    if not changed and not gone:
        return None
    return (f"the kernel's files changed while it was judged: {', '.join(changed + gone)}; a kernel must not "
            "rewrite its reference or itself")


def template_wanted(device):
    """Whether kernel processes are forks of a template (Pool), unless KGO_HARNESS_TEMPLATE=0, and only in a process
    that adopts orphans (the judge). On a GPU a fork then pays only its CUDA context, not the torch import: a
    spare is ready sooner for back-to-back identities (a sweep)."""
    wanted = os.environ.get("KGO_HARNESS_TEMPLATE", "1") == "1"
    return wanted and procs.is_subreaper()


class Pool:
    """At most one kernel process in use, bound to one identity, and up to `keep` spares: kernel processes in their
    cells, started (torch, Triton, a GPU's CUDA context) before any identity is known, each handed to one identity."""

    def __init__(self, device, keep, first=None):
        """`first`: a kernel process already started, the first spare."""
        self.device = device
        self.keep = keep
        self.current = None
        # New kernel processes are forks of a template process with torch imported; only where this process
        # adopts orphans (the judge), since the template hands each fork over through an orphaned middle process.
        self.template = None
        if template_wanted(device):
            from kgo_harness.judge import zygote
            self.template = zygote.Template(device, cell_places())
        # With a template the first process (unless the judge spawned `first` already) is forked once the template
        # is ready (wait_ready), so the judge goes on to its own torch import meanwhile; without one it is spawned
        # now, for the same overlap.
        self.spares = [first] if first is not None else [] if self.template is not None else [self._new()]

    def _new(self):
        return KernelProcess(self.device, self.template)

    def wait_ready(self):
        """A spare kernel process, made if needed, has started (torch imported, tamper snapshot taken)."""
        if not self.spares:
            self.spares.append(self._new())
        self.settle()

    def settle(self):
        """Spares still starting finish their start now: before anything is timed, so that no start-up shares the
        host with the timed loops."""
        for spare in self.spares:
            spare.wait_ready()

    def refill(self):
        """Back to `keep` spares, after a request: started while no request runs, ready for the next identities."""
        while len(self.spares) < self.keep:
            self.spares.append(self._new())

    def get(self, identity, key=None, timed=False):
        """The kernel process of `identity`: the current one, else a spare (the oldest) or a new one. A request that
        times nothing (`timed` false) starts the spare that replaces it now, so that it is ready for the next
        identity; a timed one leaves that to `refill`, after its timing."""
        cur = self.current
        if cur is not None and cur.identity == identity and cur.proc.poll() is None:
            return cur, True
        self.discard()
        proc = self.spares.pop(0) if self.spares else self._new()
        proc.identity, proc.compile_key = identity, key or identity
        self.current = proc
        if not timed:
            self.refill()
        return proc, False

    def helper(self):
        """A second process bound to the current identity, started on first use and ended with it: for a
        reference that lives in the kernel's own file (it runs there, never here or beside the kernel)."""
        cur = self.current
        if cur.helper is None or cur.helper.proc.poll() is not None:
            cur.helper = self.spares.pop(0) if self.spares else self._new()
            cur.helper.identity, cur.helper.compile_key = cur.identity, cur.compile_key
        return cur.helper

    def discard(self):
        """Ends the kernel's process and everything it started: each kernel process leads a session of its own,
        so what it left behind (this process, their subreaper, adopted it) is in another session than this
        one's; the spares' trees and this process's own helpers are left alone."""
        if self.current is None:
            return
        self.current.close()
        self.current = None
        strays = self._strays()
        procs.signal_each(strays, signal.SIGKILL)
        for pid in strays:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass

    def _strays(self, walk=False):
        """This process's descendants in sessions other than its own, but for the spares' trees: what kernel
        processes started (each leads a session of its own; this process, their subreaper, adopts what they leave)."""
        keep = set()
        for spare in self.spares:
            keep |= {spare.proc.pid, *procs.descendants(spare.proc.pid, walk)}
        mine = os.getsid(0)
        return [p for p in procs.descendants(os.getpid(), walk) if p not in keep and _sid(p) not in (mine, None)]

    def cell_pids(self):
        """Every live process that ran or may run the kernel's code: the current kernel process and its helper, all
        they started, and (where this process adopts orphans) what they left behind. Never a spare."""
        cur = self.current
        roots = [k.proc.pid for k in (cur, cur.helper if cur else None) if k is not None and k.proc.poll() is None]
        pids = {p for r in roots for p in (r, *procs.descendants(r, walk=True))}
        if procs.is_subreaper():
            pids.update(self._strays(walk=True))
        return pids

    @contextlib.contextmanager
    def still(self):
        """The kernel's cell holds still while the judge times its own work: every process of it stopped (SIGSTOP:
        it cannot be caught, and a stopped process starts no work on a device or a core), then continued. Yields
        the pids that did not stop (none, but for a thread held in a system call for seconds). Work the cell queued
        on a GPU before it stopped still runs: wallclock.alone waits for that."""
        stopped, running = set(), []
        try:
            for _ in range(64):   # a process forking as it is stopped leaves a child to stop on the next pass
                new = self.cell_pids() - stopped
                if not new:
                    break
                procs.signal_each(new, signal.SIGSTOP)
                stopped |= new
                running += procs.wait_stopped(new)
            yield running
        finally:
            procs.signal_each(stopped, signal.SIGCONT)

    def close(self):
        self.discard()
        for spare in self.spares:
            spare.close()
        self.spares = []
        if self.template is not None:
            self.template.close()
            self.template = None
        cellfs.cleanup()


def _sid(pid):
    try:
        return os.getsid(pid)
    except OSError:
        return None


def identity(req, srcs):
    """What a kernel process is bound to: the workspace folder, the device, its memory cap (set once per
    process) and every source's hash."""
    text = json.dumps([str(pathlib.Path(req["kernel"]).resolve().parent), req.get("device"),
                       req.get("memory_limit_mb"), [(s["path"], s["sha256"]) for s in srcs]])
    return hashlib.sha256(text.encode()).hexdigest()


def compile_key(req, srcs):
    """Whose compile cache a kernel process writes and reads: the device and every source's bytes and place relative
    to the kernel's folder, not the workspace. The same kernel, reference and imports in another workspace (a sweep's
    copies, a second workspace) reuse what the first compiled; a cache is only ever written by code with exactly
    these sources, so no other kernel can plant an object in it."""
    top = pathlib.Path(req["kernel"]).resolve().parent
    places = sorted((os.path.relpath(s["path"], top), s["sha256"]) for s in srcs)
    text = json.dumps(["compile", req.get("device"), places])
    return hashlib.sha256(text.encode()).hexdigest()


def now():
    return time.perf_counter()
