"""The judges' template (`__forker__ SOCKET IDLE DEVICE`, started by forker_client): imports torch and the judge's
modules once, never a request's data, never CUDA, and forks one judge per request on its socket, so that a
one-shot request pays a fork instead of a torch import. Each judge leads a session of its own, gets the caller's
descriptors (its stdin, stderr and results channel), environment and folder, and runs the worker as a fresh one
would. The template reports a judge's exit status on the connection that asked for it and kills the judge when
that connection closes first (its supervisor died); as a subreaper it kills any other orphan it adopts. It exits
after IDLE seconds with no judge, or once its socket is gone. A request's first line is the key written beside the
socket (0600): connecting takes no read right, reading the key does, and no cell can."""
import json
import os
import select
import signal
import socket
import sys
import time


def serve(path, idle_s, device):
    from kgo_harness import procs
    procs.become_subreaper()
    procs.collect_later()
    try:
        # What a fresh judge has imported when it forks its kernel processes' template, and nothing more: those
        # processes then hold the same modules either way (a kernel's patch of a judge module it imports itself
        # meets the same guard).
        import torch  # noqa: F401
        from kgo_harness.judge import remote, worker  # noqa: F401
    except Exception as e:
        sys.stderr.write(f"kgo judges' template: cannot import torch or the judge: {type(e).__name__}: {e}\n")
        return 4
    procs.freeze_heap()
    os.chdir("/")   # holds no caller's folder; each judge goes to its own caller's
    listener = procs.KeyedListener(path, 16)
    srv = listener.sock
    judges = {}   # pid -> the connection that asked for it
    last = time.monotonic()
    try:
        while True:
            # Once its socket is gone (removed, or taken by a newer template) it forks nothing more and ends with
            # its last judge.
            ours = listener.still_ours()
            ready, _, _ = select.select([srv] * ours + list(judges.values()), [], [], 0.25)
            for sock in ready:
                if sock is srv:
                    conn, _ = srv.accept()
                    pid = _serve_one(conn, listener, device, judges)
                    if pid:
                        judges[pid] = conn
                    else:
                        conn.close()
                    continue
                pid = next(p for p, c in judges.items() if c is sock)
                try:
                    gone = not sock.recv(64)
                except OSError:
                    gone = True
                if gone:   # its supervisor is gone: so is this judge, with its group
                    _kill(pid)
            _reap(judges)
            if judges:
                last = time.monotonic()
            if not judges and (not ours or time.monotonic() - last > idle_s):
                break
    finally:
        for pid in list(judges):
            _kill(pid)
        listener.close()
    return 0


def _serve_one(conn, listener, device, judges):
    """Reads one fork request from `conn` and forks its judge; the judge's pid, or None (the reply says why)."""
    import torch
    conn.settimeout(2)   # a caller that sends nothing holds up the next ones for this long at most
    try:
        data, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
        while data.count(b"\n") < 2:
            more = conn.recv(1 << 20)
            if not more:
                break
            data += more
    except OSError:
        return None
    given, _, rest = data.partition(b"\n")
    error = None
    if not listener.keyed(given):
        error = "refused: the request does not carry this template's key"
    elif len(fds) != 3:
        error = "a fork request carries three descriptors (stdin, stderr, results)"
    elif torch.cuda.is_initialized():
        error = "CUDA is initialized in the judges' template"
    pid = None
    if error is None:
        spec = json.loads(rest)
        pid = os.fork()
        if pid == 0:
            _become_judge(fds, spec, device, [listener.sock, conn, *judges.values()])   # never returns
    for fd in fds:
        os.close(fd)
    try:
        conn.settimeout(None)
        conn.sendall(json.dumps({"pid": pid} if pid else {"error": error}).encode() + b"\n")
    except OSError:
        if pid:
            _kill(pid)
        return None
    return pid


def _become_judge(fds, spec, device, sockets):
    try:
        for s in sockets:
            s.close()
        stdin_r, stderr_w, result_w = fds
        os.setsid()
        os.dup2(stdin_r, 0)
        os.dup2(stderr_w, 2)
        os.close(stdin_r)
        os.close(stderr_w)
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGCHLD):
            signal.signal(sig, signal.SIG_DFL)
        os.environ.clear()
        os.environ.update(spec["env"])
        try:
            os.chdir(spec["cwd"])
        except OSError:   # the caller's folder is gone, as a fresh judge's would be: it does not need it
            pass
        import tempfile
        tempfile.tempdir = None   # the caller's TMPDIR, not the template's
        sys.argv = [sys.argv[0], "__worker__", str(result_w), device] + ([] if spec["kernels"] else ["judge-only"])
        from kgo_harness import procs
        from kgo_harness.judge import worker
        procs.profiled(worker.main)(result_w, device, kernels=spec["kernels"])
    finally:
        os._exit(5)


def _kill(pid):
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except OSError:
            pass


def _reap(judges):
    """Reaps every child that ended; tells a judge's supervisor its status. A child that is no judge is an orphan
    this subreaper adopted (a kernel's process whose judge died): killed."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if not pid:
            break
        conn = judges.pop(pid, None)
        if conn is not None:
            try:
                conn.sendall(json.dumps({"status": status}).encode() + b"\n")
            except OSError:
                pass
            conn.close()
    for pid in _children() - set(judges):
        _kill(pid)


def _children():
    out = set()
    try:
        for tid in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{tid}/children") as f:
                out |= {int(p) for p in f.read().split()}
    except OSError:
        pass
    return out
