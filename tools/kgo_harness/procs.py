"""Process containment (Linux): a process dies with its parent, the supervisor adopts orphans (subreaper),
and every descendant, also one that left its process group with setsid(), can be found and killed.
Standard library only."""
import ctypes
import os
import signal
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
PR_GET_CHILD_SUBREAPER = 37


def _prctl(option, arg):
    """prctl(option, arg): `arg` an int or a ctypes pointer. False where it fails or libc has no prctl."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(option, arg, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def die_with_parent(sig=signal.SIGKILL):
    """This process gets `sig` when its parent exits; exits now if the parent is already gone."""
    parent = os.getppid()
    _prctl(PR_SET_PDEATHSIG, int(sig))
    if os.getppid() != parent or parent == 1:
        os._exit(1)


def prime_cuda(device):
    """Starts the CUDA driver (cuInit, the first visible device's primary context) on a thread while this process
    goes on importing torch, which then finds the context made instead of making it after its import (about 1 s of
    a cold start on an H200). Best effort; nothing on the CPU."""
    if device != "cuda":
        return None

    def run():
        try:
            cuda = ctypes.CDLL("libcuda.so.1")
            dev, ctx = ctypes.c_int(), ctypes.c_void_p()
            if cuda.cuInit(0) == 0 and cuda.cuDeviceGet(ctypes.byref(dev), 0) == 0:
                cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev)
        except (OSError, AttributeError):
            pass
    import threading
    thread = threading.Thread(target=run, name="kgo-cuda-prime", daemon=True)
    thread.start()
    return thread


def become_subreaper():
    """Orphaned descendants are re-parented to this process instead of init, so they stay findable."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


def spawn_detached(argv, env, log_path):
    """Starts `argv` (with `env`) in a session of its own that this process does not adopt even as a subreaper: a
    process meant to outlive it (the judges' template). stdin and stdout are /dev/null, stderr appends to
    `log_path`. Returns its pid (it is nobody's child here), or None where it could not start."""
    subreaper = is_subreaper()
    if subreaper:
        _prctl(PR_SET_CHILD_SUBREAPER, 0)   # else the orphan below would come back to this process
    r, w = os.pipe()
    try:
        middle = os.fork()
        if middle == 0:
            try:
                os.close(r)
                os.setsid()
                pid = os.fork()
                if pid:
                    os.write(w, str(pid).encode())
                    os._exit(0)
                null = os.open(os.devnull, os.O_RDWR)
                log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
                os.dup2(null, 0)
                os.dup2(null, 1)
                os.dup2(log, 2)
                os.closerange(3, os.sysconf("SC_OPEN_MAX"))
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        os.close(w)
        text = b""
        while chunk := os.read(r, 64):
            text += chunk
        os.waitpid(middle, 0)
        return int(text) if text.isdigit() else None
    finally:
        os.close(r)
        if subreaper:
            become_subreaper()


def is_subreaper():
    """Whether orphaned descendants are re-parented to this process (become_subreaper was called)."""
    flag = ctypes.c_int(0)
    return _prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(flag)) and flag.value == 1


def collect_later():
    """The garbage collector off while a process imports torch: the import's allocations set off collections
    that each walk everything imported so far (about 0.1 s of CPU per start). freeze_heap turns it back
    on."""
    import gc
    gc.disable()


def freeze_heap():
    """Moves every object alive now (torch's and the harness's modules: about a million) out of the garbage
    collector's view, once a process has made its imports, and turns the collector on: later collections then walk
    only what comes after, and a process forked from here never walks (nor copies the pages of) what it inherited.
    Frozen objects are never freed, which suits modules that live as long as the process. The judge does this, and
    the kernel processes' template before its first fork: a kernel process's own objects (the guard's snapshot
    among them) are made after the fork and stay in gc.get_objects()'s view, which the attack tests use to reach
    the guard. Never in a kernel's process itself, where it would hide them and those tests would pass without
    testing it."""
    import gc
    gc.freeze()
    gc.enable()


def _stat_fields(path):
    """The fields of a /proc stat file after the command name (which may hold spaces and parentheses): state,
    ppid, ...; None where it cannot be read."""
    try:
        with open(path, "rb") as f:
            stat = f.read().decode("latin-1")
    except OSError:
        return None
    return stat[stat.rfind(")") + 2:].split()


def _children_map():
    kids = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        fields = _stat_fields(f"/proc/{entry}/stat")
        if fields and len(fields) > 2 and fields[0] != "Z":
            kids.setdefault(int(fields[1]), []).append(int(entry))
    return kids


STOP_WAIT_S = 2.0


def wait_stopped(pids, limit_s=STOP_WAIT_S):
    """Waits until every thread of each of `pids` is stopped (or the process is gone): a SIGSTOP takes effect when
    a thread next leaves the kernel, not when kill() returns. Returns the pids with a thread still running after
    `limit_s` (all of them share it)."""
    deadline = time.monotonic() + limit_s
    running = []
    for pid in pids:
        while True:
            try:
                states = [_state(f"/proc/{pid}/task/{t}/stat") for t in os.listdir(f"/proc/{pid}/task")]
            except OSError:
                break
            if all(s in ("T", "t", "Z", "X", None) for s in states):
                break
            if time.monotonic() >= deadline:
                running.append(pid)
                break
            time.sleep(0.0005)
    return running


def _state(path):
    fields = _stat_fields(path)
    return fields[0] if fields else None


def signal_each(pids, signum):
    """Sends `signum` to each of `pids`, passing over those already gone."""
    for pid in pids:
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass


def descendants(root, walk=False):
    """Every live descendant of `root`, from one pass over every process's /proc entry; `walk`: down from `root`
    through /proc/<pid>/task/<tid>/children instead (a few reads for a small tree, where a GPU host may run hundreds
    of processes), where the kernel offers those files."""
    if walk and _CHILDREN_FILES:
        return _walk(root)
    kids, out, todo = _children_map(), [], [root]
    while todo:
        for child in kids.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


_CHILDREN_FILES = os.path.exists(f"/proc/self/task/{os.getpid()}/children")


def _walk(root):
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    kids = [int(c) for c in f.read().split()]
            except OSError:   # the thread ended
                continue
            out += kids
            todo += kids
    return out


def kill_tree(root_pgid=None, owner=None, no_reap=()):
    """SIGKILLs the process group `root_pgid` and every live descendant of `owner` (default: this process),
    repeating while new ones appear; reaps the killed ones that are this process's children, except the
    pids in `no_reap` (their owners wait for them)."""
    owner = owner or os.getpid()
    if root_pgid:
        try:
            os.killpg(root_pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    for _ in range(20):
        found = [p for p in descendants(owner) if p != owner]
        if not found:
            return
        signal_each(found, signal.SIGKILL)
        for pid in found:
            if pid in no_reap:
                continue
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def device_env(device):
    """The environment of a harness process for `device`: the Triton interpreter on the CPU, never on a GPU."""
    env = dict(os.environ)
    if device == "cpu":
        env["TRITON_INTERPRET"] = "1"
    else:
        env.pop("TRITON_INTERPRET", None)
    return env


def private_folder():
    """A fresh folder only this user can enter, in memory where the system has /dev/shm (where wire.py's
    messages live). Here, not in wire.py, so that starting a kernel's process does not wait for torch."""
    import tempfile
    base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    return tempfile.mkdtemp(prefix="kgo-wire-", dir=base)


class KeyedListener:
    """A Unix socket at `path` for this user's requests only: each request's first line is the random key written
    (mode 0600) to the file beside it before the socket appears. Connecting to a Unix socket takes no read right,
    so Landlock's read rules do not keep a kernel's cell from it; reading the key file does, and no cell can read
    that folder. The socket is bound under a temporary name no longer than its own and renamed once it listens."""

    def __init__(self, path, backlog):
        import secrets
        import socket
        self.path = path
        self.key = secrets.token_hex(32).encode()
        self.key_path = os.path.splitext(path)[0] + ".key"
        tmp = f"{self.key_path}.{os.getpid()}.tmp"
        with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as f:
            f.write(self.key + b"\n")
        os.replace(tmp, self.key_path)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        tmp = os.path.join(os.path.dirname(path), f".{os.getpid()}.tmp")
        self.sock.bind(tmp)
        os.chmod(tmp, 0o600)
        self.sock.listen(backlog)
        os.replace(tmp, path)
        self._ino = os.stat(path).st_ino

    def keyed(self, first_line):
        import hmac
        return hmac.compare_digest(first_line.strip(), self.key)

    def still_ours(self):
        """False once the socket was removed or taken by a newer listener."""
        try:
            return os.stat(self.path).st_ino == self._ino
        except OSError:
            return False

    def close(self):
        """Closes the socket; removes it and the key where they are still this listener's."""
        self.sock.close()
        if self.still_ours():
            for p in (self.path, self.key_path):
                try:
                    os.unlink(p)
                except OSError:
                    pass


_PROFILE = {}


def profiled(main):
    """`main` as is, or, with KGO_HARNESS_PROFILE=FILE set, under cProfile with the stats written to FILE when it
    exits through os._exit (the judge's way out: the whole run), and to FILE.<n> after its n-th request (that
    request alone, profile_checkpoint): where a judge's time goes, cold and warm, for developers."""
    path = os.environ.get("KGO_HARNESS_PROFILE")
    if not path:
        return main
    import cProfile

    def run(*args, **kwargs):
        prof = cProfile.Profile()
        _PROFILE.update(prof=prof, path=path, served=0)
        real_exit = os._exit

        def dump_and_exit(code):
            import pstats
            prof.disable()
            whole = pstats.Stats(prof)   # the last stretch, plus every request's file: the whole run
            for n in range(1, _PROFILE["served"] + 1):
                whole.add(f"{path}.{n}")
            whole.dump_stats(path)
            real_exit(code)
        os._exit = dump_and_exit
        _PROFILE["real_exit"] = real_exit
        prof.enable()
        main(*args, **kwargs)
    return run


def unprofile():
    """In a fork of a profiled process: its profiler off and os._exit its own again (the stats are the parent's)."""
    prof = _PROFILE.pop("prof", None)
    if prof is not None:
        prof.disable()
        os._exit = _PROFILE.pop("real_exit")


def profile_checkpoint():
    """Under KGO_HARNESS_PROFILE: writes the stats since the last checkpoint (or the start) to FILE.<n> and
    starts counting afresh; otherwise nothing."""
    prof = _PROFILE.get("prof")
    if prof is None:
        return
    prof.disable()
    _PROFILE["served"] += 1
    prof.dump_stats(f"{_PROFILE['path']}.{_PROFILE['served']}")
    prof.clear()
    prof.enable()


def memtrace_file():
    """KGO_HARNESS_MEMTRACE, read when used: a judge forked from the judges' template gets its environment after
    the harness's modules were imported."""
    return os.environ.get("KGO_HARNESS_MEMTRACE")


def memory_now():
    """This process's CUDA caching allocator in GiB (allocated now, its peak since the last call, reserved), the
    peak reset; None without a CUDA context."""
    import torch
    if not torch.cuda.is_available() or not torch.cuda.is_initialized():
        return None
    gib = 2 ** 30
    out = {"alloc": round(torch.cuda.memory_allocated() / gib, 2), "peak": round(torch.cuda.max_memory_allocated() / gib, 2),
           "reserved": round(torch.cuda.memory_reserved() / gib, 2)}
    torch.cuda.reset_peak_memory_stats()
    return out


def trace_memory(text):
    """With KGO_HARNESS_MEMTRACE=FILE (for developers): one line per request to the kernel's process appended to
    FILE, with the judge's and the cell's CUDA memory (procs.memory_now): where a large problem's GPU memory goes."""
    with open(memtrace_file(), "a") as f:
        f.write(f"{time.time():.3f} {text} judge={memory_now()}\n")
