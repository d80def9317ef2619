"""The kernel's cell: how a kernel process confines itself before any kernel code runs. Standard library only.

Layers, each applied by trusted code in the process that will import the kernel:
1. Namespaces (`enter`): a PID namespace of its own with a fresh /proc (the judge, the supervisor and kgo are not
   there to see), a network namespace with no interface up, a private IPC namespace and mount namespace; where kgo
   is not root, a user namespace makes these possible. A small reaper is the namespace's pid 1; the kernel process
   is its child, so a kernel's own signals and crashes behave as outside.
2. Another user (`confine`): where the judge is root, the kernel process becomes `CELL_UID` (nobody): the judge's
   files, the stamp key among them (mode 0600), are out of reach whatever Landlock allows.
3. Landlock (`confine`, then `narrow` once the kernel's identity is known): read only the interpreter, its
   packages, the harness, system folders and the cell's own files (never the workspace or a home folder); write
   only the cell's scratch folder and its identity's compile cache; no TCP; no signal or ptrace beyond the cell.
Hand-written rather than bubblewrap: a kernel process on the CPU is a fork of a template with torch imported, and
a fork cannot pass through an exec'd sandbox tool without paying the torch import again.
Where namespaces are refused, Landlock is the floor; where neither is possible the judge refuses to run a kernel
unless the request says `unconfined` (recorded in the result's `cell`)."""
import ctypes
import os
import signal
import sys
import time

CELL_UID = 65534   # nobody
_CLONE_NEWNS, _CLONE_NEWUTS, _CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
_CLONE_NEWUSER, _CLONE_NEWPID, _CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REC, _MS_PRIVATE = 2, 4, 8, 0x4000, 0x40000
_PR_SET_PDEATHSIG = 1
SYSTEM_READ = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/sys", "/proc")
DEVICES_RW = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")


class Refused(OSError):
    """This machine refuses the confinement asked for."""


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def wanted():
    """The layers the environment allows kgo to try: KGO_CELL=auto (default: namespaces, then Landlock),
    landlock (Landlock only) or off (nothing: only with an unconfined request)."""
    mode = os.environ.get("KGO_CELL", "auto")
    return mode if mode in ("auto", "landlock", "off") else "auto"


# --- 1. namespaces ---------------------------------------------------------------------------------------------
def enter(judge_pid, shim, on_reaper=None):
    """Makes this process's next child the pid 1 (a reaper) of fresh namespaces, and its child the kernel process.
    Returns in the kernel process with the namespaces used (a list of names, empty where refused). The calling
    process either exits at once (`shim` False: the judge, a subreaper, adopts the reaper) or stays and exits with
    the kernel process's status (`shim` True: it is the process the judge started); `on_reaper(pid)` is told the
    reaper's pid first."""
    names = []
    if wanted() == "auto":
        names = _unshare()
    r, w = os.pipe()
    reaper = os.fork()
    if reaper:
        os.close(r)
        if not shim:
            on_reaper(reaper)
            os._exit(0)
        os.close(w)
        _, status = os.waitpid(reaper, 0)
        _exit_as(status)
    os.close(w)
    os.setsid()   # the cell's root leads a session of its own, as the kernel process does below it
    _await_adoption(judge_pid, r, shim)
    if "pid" in names:
        _fresh_proc()
    kernel = os.fork()
    if kernel == 0:
        _die_with_parent()
        return names
    _reap_until(kernel)


def _unshare():
    """Unshares mount, PID, network and IPC namespaces (with a user namespace where this process is not root);
    the names of those made, or [] where the machine refuses."""
    libc = _libc()
    flags = _CLONE_NEWNS | _CLONE_NEWPID | _CLONE_NEWNET | _CLONE_NEWIPC | _CLONE_NEWUTS
    uid, gid = os.geteuid(), os.getegid()
    if uid != 0:
        flags |= _CLONE_NEWUSER
    if libc.unshare(flags) != 0:
        return []
    if uid != 0:
        try:
            _write("/proc/self/setgroups", "deny")
            _write("/proc/self/uid_map", f"{uid} {uid} 1")
            _write("/proc/self/gid_map", f"{gid} {gid} 1")
        except OSError:
            return []
    if libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
        return []
    return ["mount", "pid", "net", "ipc", "uts"] + (["user"] if uid != 0 else [])


def _write(path, text):
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _await_adoption(judge_pid, r, shim):
    """The reaper's parent-death signal, armed once its parent is the judge: the old /proc still shows this
    process as the judge's namespace sees it (its outer pid and parent)."""
    while os.read(r, 1):
        pass
    os.close(r)
    deadline = time.monotonic() + 10
    while not shim and _outer_ppid() != judge_pid:
        if time.monotonic() > deadline:
            os._exit(5)
        time.sleep(0.001)
    _die_with_parent()
    if not shim and _outer_ppid() != judge_pid:
        os._exit(5)


def _outer_ppid():
    with open("/proc/self/stat", "rb") as f:
        stat = f.read().decode("latin-1")
    return int(stat[stat.rfind(")") + 2:].split()[1])


def _fresh_proc():
    if _libc().mount(b"proc", b"/proc", b"proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, None) != 0:
        os._exit(7)


def _die_with_parent():
    _libc().prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)


def _reap_until(kernel):
    """pid 1 of the namespace: reaps every orphan and exits with the kernel process's status."""
    for fd in range(3, 1024):
        try:
            os.close(fd)
        except OSError:
            pass
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            os._exit(0)
        if pid == kernel:
            _exit_as(status)


def _exit_as(status):
    """Exits with a child's wait status: its exit code, or 128 + the signal that killed it (a namespace's pid 1
    cannot die of a signal it sends itself)."""
    if os.WIFSIGNALED(status):
        os._exit(128 + os.WTERMSIG(status))
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def signal_of(returncode, namespaced):
    """The signal a cell's exit status reports (the reaper's 128 + n), else None."""
    if returncode is None:
        return None
    if returncode < 0:
        return -returncode
    if namespaced and 128 < returncode < 128 + 65:
        return returncode - 128
    return None


def environment(rw, cache):
    """The variables that send a cell's writes (temporary files, compilers' caches) into its own places."""
    home = os.path.join(rw, "home")
    return {"HOME": home, "TMPDIR": os.path.join(rw, "tmp"), "XDG_CACHE_HOME": os.path.join(cache, "xdg"),
            "TRITON_CACHE_DIR": os.path.join(cache, "triton"), "TRITON_HOME": home,
            "TORCHINDUCTOR_CACHE_DIR": os.path.join(cache, "inductor"),
            "TORCH_EXTENSIONS_DIR": os.path.join(cache, "torch_extensions"),
            "CUDA_CACHE_PATH": os.path.join(cache, "nv"), "KGO_CACHE_DIR": cache}


def use_places(rw, cache):
    """This process's temporary files, home and compile caches go to `rw` and `cache` from now on."""
    import tempfile
    env = environment(rw, cache)
    for key in ("HOME", "TMPDIR"):
        os.makedirs(env[key], exist_ok=True)
    os.environ.update(env)
    tempfile.tempdir = None


# --- 2 and 3. another user, Landlock ---------------------------------------------------------------------------
def confine(rw, namespaces):
    """In the kernel process before anything else: another user where this is root in namespaces of its own, then
    Landlock's first layer (writes: `rw` and every identity's compile cache, $KGO_CELL_CACHE). Returns {"user",
    "landlock"}; raises Refused where Landlock fails and the policy wants it."""
    from kgo_harness.cell import landlock
    shared_write = [p for p in (os.environ.get("KGO_CELL_CACHE"),) if p]
    user = None
    if os.geteuid() == 0 and "mount" in namespaces and "pid" in namespaces:
        _reexpose([*read_paths(rw), *shared_write], rw)
        os.setgroups([])
        os.setresgid(CELL_UID, CELL_UID, CELL_UID)
        os.setresuid(CELL_UID, CELL_UID, CELL_UID)
        user = CELL_UID
    if wanted() == "off":
        return {"user": user, "landlock": None}
    try:
        abi = landlock.restrict(read=read_paths(rw), write=[rw, *shared_write, *_device_files()])
    except landlock.Unavailable as e:
        raise Refused(str(e)) from e
    return {"user": user, "landlock": abi}


_MS_BIND, _MS_MOVE = 4096, 8192


def _reexpose(paths, rw):
    """In this mount namespace only: a folder that the cell's user may not enter (a home of mode 0700 holding the
    interpreter, say) is covered by an empty tmpfs into which just the needed entries below it are bound, so the
    interpreter stays reachable and the rest of that folder (a workspace, its stamp key) is not there at all."""
    libc = _libc()
    for _ in range(4):
        closed = {}
        for p in paths:
            found = _closed_ancestor(p)
            if found:
                closed.setdefault(found[0], set()).add(found[1])
        if not closed:
            return
        for folder, names in sorted(closed.items()):
            stage = os.path.join(rw, ".stage")
            os.makedirs(stage, exist_ok=True)
            if libc.mount(b"tmpfs", stage.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, b"mode=0755,size=64k") != 0:
                raise Refused(f"cannot mount a tmpfs in the cell: {os.strerror(ctypes.get_errno())}")
            for name in sorted(names):
                src, dst = os.path.join(folder, name), os.path.join(stage, name)
                if os.path.isdir(src):
                    os.mkdir(dst)
                else:
                    open(dst, "w").close()
                if libc.mount(src.encode(), dst.encode(), None, _MS_BIND | _MS_REC, None) != 0:
                    raise Refused(f"cannot bind {src} into the cell: {os.strerror(ctypes.get_errno())}")
            if libc.mount(stage.encode(), folder.encode(), None, _MS_MOVE, None) != 0:
                raise Refused(f"cannot cover {folder} in the cell: {os.strerror(ctypes.get_errno())}")


def _closed_ancestor(path):
    """(folder, entry below it on the way to `path`) for the first folder above `path` that others may not
    enter, else None."""
    if not os.path.isabs(path) or not os.path.exists(path):
        return None
    parts = os.path.normpath(path).split(os.sep)[1:]
    current = "/"
    for i, part in enumerate(parts[:-1]):
        current = os.path.join(current, part)
        try:
            st = os.stat(current)
        except OSError:
            return None
        if not st.st_mode & 0o001 and st.st_uid != CELL_UID:
            return current, parts[i + 1]
    return None


def narrow(rw, cache):
    """Landlock's second layer once the kernel's identity is known: writes only beneath `rw` and its identity's
    compile cache `cache`."""
    from kgo_harness.cell import landlock
    if wanted() == "off":
        return None
    return landlock.restrict(read=read_paths(rw), write=[rw, cache, *_device_files()])


def _devices():
    """/dev's entries but shm: under /dev/shm live the other cells' folders of every judge (the same user's, when
    kgo runs as root: all cells share one), a baseline process's reference outputs in flight among them."""
    try:
        names = [os.path.join("/dev", n) for n in os.listdir("/dev") if n != "shm"]
    except OSError:
        return set()
    # Links (/dev/stderr, /dev/fd: into /proc, which is read anyway) name no device a rule could hold.
    return {p for p in names if not os.path.islink(p)}


def read_paths(rw):
    """What the cell writing `rw` may read: system folders, the interpreter and every folder of its import path, the
    harness, PATH and LD_LIBRARY_PATH folders (compilers, CUDA), the CUDA toolkit, devices and the cell's own folder,
    the one holding `rw` and its src/ (not its judge's root of cell folders, nor the rest of /dev/shm)."""
    paths = set(SYSTEM_READ) | _devices()
    for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.realpath(sys.executable)),
              os.path.dirname(sys.executable)):
        paths.add(p)
    for p in sys.path:
        if p:
            paths.update({p, os.path.realpath(p)})
    for var in ("PATH", "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "TRITON_PTXAS_PATH", "TRITON_CUOBJDUMP_PATH"):
        for p in os.environ.get(var, "").split(os.pathsep):
            if p and os.path.isabs(p):
                paths.update({p, os.path.realpath(p)})
    paths.add(os.path.dirname(os.path.realpath(rw)))
    # The protocol's names and defaults, which the harness's modules read at import (schemas/harness/ beside tools/).
    harness = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    paths.add(os.path.join(os.path.dirname(os.path.dirname(harness)), "schemas", "harness"))
    import pwd
    import tempfile
    # The user's own home from the password database: $HOME already points into the cell's folder here.
    try:
        home = os.path.realpath(pwd.getpwuid(os.geteuid()).pw_dir)
    except KeyError:
        home = "/"
    # A PATH or import-path entry that is /, the temporary folder, a home folder or one above it would open what the
    # cell must not see (a workspace, a stamp key).
    closed = {"/", os.path.realpath(tempfile.gettempdir()), home}

    def opens_too_much(p):
        real = os.path.realpath(p)
        return real in closed or home.startswith(real.rstrip(os.sep) + os.sep)
    return sorted(p for p in paths if not opens_too_much(p))


def _device_files():
    """Device nodes a kernel opens read-write (the basics and the GPU's), and this process's own /proc folder, which
    the CUDA driver writes while it makes a context."""
    names = [*DEVICES_RW, f"/proc/{os.getpid()}"]
    try:
        names += [f"/dev/{n}" for n in os.listdir("/dev") if n.startswith("nvidia")]
        names += [f"/dev/nvidia-caps/{n}" for n in os.listdir("/dev/nvidia-caps")]
    except OSError:
        pass
    try:
        names += [f"/dev/dri/{n}" for n in os.listdir("/dev/dri")]
    except OSError:
        pass
    return names


def writable_from_here():
    """Import-path folders, the interpreter and the harness that this (confined) process could write: a cell
    that could plant a .pth file or rewrite the judge's code would reach later judges. Checked by creating a file."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # the harness package
    targets = {os.path.realpath(p) for p in sys.path if p and os.path.isdir(p)}
    targets |= {os.path.dirname(os.path.realpath(sys.executable)), here, os.path.dirname(here)}
    found = []
    for folder in sorted(targets):
        probe = os.path.join(folder, f".kgo-cell-probe-{os.getpid()}")
        try:
            fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except OSError:
            continue
        os.close(fd)
        os.unlink(probe)
        found.append(folder)
    return found
