"""The supervisor's side of the judges' template (judge/forker.py): a judge forked from a process that has torch
imported already, instead of a fresh interpreter that imports it (about 2 s of CPU a judge). One template serves
one user and one import identity: the interpreter, the harness's sources, the device and the environment but for
kgo's own KGO_* settings and the caller's folder (which nothing reads while importing; the judge gets the caller's
whole environment). The first judge of an identity starts its template (the import it would have paid itself) and
later judges fork from it until it has been idle for KGO_JUDGE_FORK_IDLE_S (120 s). KGO_JUDGE_FORK=0: every judge
imports torch itself.
The template serves only requests that carry its key, a 0600 file beside its socket that no cell can read.
Standard library only, like the supervisor."""
import fcntl
import hashlib
import json
import os
import socket
import sys
import time

from kgo_harness import procs

ENTRY = os.path.dirname(os.path.abspath(__file__))   # the package folder: Python runs its __main__.py
_SCHEMAS = os.path.join(os.path.dirname(os.path.dirname(ENTRY)), "schemas", "harness")
START_TIMEOUT_S = 120.0


def wanted():
    return os.environ.get("KGO_JUDGE_FORK", "auto") != "0"


def idle_s():
    try:
        return max(1.0, float(os.environ.get("KGO_JUDGE_FORK_IDLE_S", "120")))
    except ValueError:
        return 120.0


def folder():
    """The user's private socket folder (kgo's: $XDG_RUNTIME_DIR/kgo, else /tmp/kgo-<uid>), None where it is not
    private (another user could have placed a socket there)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    path = os.path.join(runtime, "kgo") if runtime else f"/tmp/kgo-{os.getuid()}"
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    st = os.lstat(path)
    private = os.path.isdir(path) and not os.path.islink(path) and st.st_uid == os.getuid() and not st.st_mode & 0o077
    return path if private else None


def _sources():
    """(name, size, mtime) of every harness source and protocol schema: an edited harness makes a new identity."""
    out = []
    for base in (ENTRY, _SCHEMAS):
        for root, dirs, files in os.walk(base):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith((".py", ".json")):
                    st = os.stat(os.path.join(root, name))
                    out.append(f"{os.path.relpath(os.path.join(root, name), base)}:{st.st_size}:{st.st_mtime_ns}")
    return out


# Set per caller by the shell or pytest and read by no import: a judge asked for from another folder (another
# workspace, a sweep job's) forks from the same template. The template runs in "/" and each judge in its caller's.
_CALLER_ONLY = ("PWD", "OLDPWD", "SHLVL", "_", "PYTEST_CURRENT_TEST")


def _imports_env(env):
    """The part of an environment that a template's imports may read: all but kgo's own KGO_* settings and the
    caller-only variables. The template runs with this alone; each judge gets its caller's whole environment."""
    return {k: v for k, v in env.items() if not k.startswith("KGO_") and k not in _CALLER_ONLY}


def identity(env, device):
    """What a template's imports depend on, hashed."""
    kept = sorted(_imports_env(env).items())
    text = json.dumps([os.path.realpath(sys.executable), ENTRY, device, kept, _sources()])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class ForkedJudge:
    """A judge forked by the template: the part of subprocess.Popen the supervisor uses. The template reports its
    exit status on `conn` and kills it if `conn` closes (the supervisor died)."""

    def __init__(self, pid, conn, stdin_w, stderr_r):
        self.pid = pid
        self.conn = conn
        self.stdin = os.fdopen(stdin_w, "w")
        self.stderr = os.fdopen(stderr_r, "r")
        self.returncode = None
        self._buf = b""

    def wait(self, timeout=None):
        import subprocess
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.returncode is None:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise subprocess.TimeoutExpired(f"judge {self.pid}", timeout)
            self.conn.settimeout(left)
            try:
                chunk = self.conn.recv(4096)
            except socket.timeout:
                continue
            except OSError:
                chunk = b""
            if not chunk:   # the template is gone: the judge died with it (its parent-death signal)
                self.returncode = -9
                break
            self._buf += chunk
            if b"\n" in self._buf:
                status = json.loads(self._buf.split(b"\n", 1)[0]).get("status", 0)
                self.returncode = os.waitstatus_to_exitcode(int(status))
        return self.returncode

    def poll(self):
        try:
            return self.wait(timeout=0.0001)
        except Exception:
            return None


def _connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
        return s
    except OSError:
        s.close()
        return None


def _ensure(base, env, device):
    """A connection to the identity's template, started here if none listens; None where it cannot start."""
    path = os.path.join(base, f"judges-{identity(env, device)}.sock")
    if len(path.encode()) >= 104:   # a Unix socket's path has about 104 bytes
        return path, None
    conn = _connect(path)
    if conn is not None:
        return path, conn
    with os.fdopen(os.open(path[:-5] + ".lock", os.O_RDWR | os.O_CREAT, 0o600)) as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)   # one start per identity; the others wait for it and use it
        conn = _connect(path)
        if conn is not None:
            return path, conn
        for stale in (path, path[:-5] + ".key"):
            try:
                os.unlink(stale)
            except OSError:
                pass
        argv = [sys.executable, "-I", "-u", ENTRY, "__forker__", path, str(idle_s()), device]
        pid = procs.spawn_detached(argv, _imports_env(env), path[:-5] + ".log")
        deadline = time.monotonic() + START_TIMEOUT_S
        while conn is None and time.monotonic() < deadline:
            if pid is None or not os.path.exists(f"/proc/{pid}"):
                return path, None
            time.sleep(0.01)
            conn = _connect(path) if os.path.exists(path) else None
        return path, conn


def start(env, device, kernels, result_w):
    """A ForkedJudge running `__worker__ <result_w> <device>` in `env`, or None (then the caller starts one itself)."""
    base = folder()
    if base is None:
        return None
    path, conn = _ensure(base, env, device)
    if conn is None:
        return None
    mine, judge = [], None   # the pipes' ends made here: closed on the way out unless the judge holds them
    try:
        with open(path[:-5] + ".key", "rb") as f:
            key = f.read().strip()
        stdin_r, stdin_w = os.pipe()
        mine += [stdin_r, stdin_w]
        stderr_r, stderr_w = os.pipe()
        mine += [stderr_r, stderr_w]
        spec = {"device": device, "kernels": kernels, "env": env, "cwd": os.getcwd()}
        socket.send_fds(conn, [key + b"\n" + json.dumps(spec).encode() + b"\n"], [stdin_r, stderr_w, result_w])
        reply = b""
        conn.settimeout(30)
        while b"\n" not in reply:
            chunk = conn.recv(4096)
            if not chunk:
                break
            reply += chunk
        conn.settimeout(None)
        line, _, rest = reply.partition(b"\n")
        msg = json.loads(line) if line else {}
        if "pid" not in msg:
            return None
        judge = ForkedJudge(int(msg["pid"]), conn, stdin_w, stderr_r)
        mine = [stdin_r, stderr_w]
        judge._buf = rest
        return judge
    except (OSError, ValueError):
        return None
    finally:
        for fd in mine:
            os.close(fd)
        if judge is None:
            conn.close()
