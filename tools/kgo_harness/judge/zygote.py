"""The kernel processes' template: a fork of the judge made once torch is imported there and before its first
request (so it holds none of a request's data), with the judge's descriptors closed; it imports Triton and the
kernel process's modules and then, per request, forks a fresh kernel process from that state, so a new (kernel,
reference, workspace) identity costs a fork instead of a torch import. It never runs a kernel, imports a
reference or initializes CUDA; each fork leaves it through a short-lived middle process so that the judge (a
subreaper) becomes the kernel process's parent.
Requests arrive on a Unix socket: {"folder", "judge"} with the kernel process's two pipe ends as descriptors;
the reply is {"pid"} or {"error"}."""
import json
import os
import socket
import time


def serve(sock_fd, device, key=(None, None)):
    """`key`: (the stored Triton cache key, the file to store a new one in), read by the judge (cellfs)."""
    from kgo_harness import procs
    procs.die_with_parent()
    sock = socket.socket(fileno=sock_fd)
    try:
        import torch
        from kgo_harness.cell import bench_kernel, guard, kernel_worker
        from kgo_harness.formats import contracts
        from kgo_harness import launches, wire  # noqa: F401
        kernel_worker.prepare_template(cache_key=device == "cuda", stored_key=key[0], store=key[1])
    except Exception as e:
        _reply(sock, {"error": f"cannot import torch/triton in the kernel processes' template: {type(e).__name__}: {e}"})
        return
    procs.freeze_heap()   # the collector was off in the judge while it imported torch; on in each fork
    _reply(sock, {"ready": True})
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(sock, 1 << 16, 2)
        except OSError:
            return
        if not data:
            return
        if len(fds) != 2 or torch.cuda.is_initialized():
            for fd in fds:
                os.close(fd)
            _reply(sock, {"error": "malformed fork request" if len(fds) != 2 else "CUDA is initialized here"})
            continue
        req = json.loads(data)
        _reply(sock, _fork(sock, fds, req, device))
        for fd in fds:
            os.close(fd)


def _reply(sock, msg):
    sock.sendall(json.dumps(msg).encode() + b"\n")


def _fork(sock, fds, req, device):
    """Forks the middle process, which enters a new cell (confine.enter: its reaper is the judge's to adopt, the
    kernel process the reaper's child) and exits; returns {"pid"} of the reaper."""
    r, w = os.pipe()
    middle = os.fork()
    if middle == 0:
        try:
            os.close(r)
            from kgo_harness.cell import confine
            namespaces = confine.enter(int(req["judge"]), shim=False, on_reaper=lambda pid: os.write(w, str(pid).encode()))
            os.close(w)
            _become_kernel_process(sock, fds, req, device, namespaces)   # never returns
        finally:
            os._exit(0)
    os.close(w)
    text = b""
    while True:
        chunk = os.read(r, 64)
        if not chunk:
            break
        text += chunk
    os.close(r)
    os.waitpid(middle, 0)
    return {"pid": int(text)} if text.isdigit() else {"error": "the fork failed"}


def _become_kernel_process(sock, fds, req, device, namespaces):
    try:
        sock.close()
        to_kernel_r, from_kernel_w = fds
        # Nothing of this template's descriptors but stdin/stdout/stderr and the two pipe ends stays open.
        _close_all_but(to_kernel_r, from_kernel_w)
        from kgo_harness.cell import kernel_worker
        kernel_worker.main(to_kernel_r, from_kernel_w, str(req["folder"]), device, namespaces)
    finally:
        os._exit(6)


def _close_all_but(*fds):
    """Closes every descriptor of this process but stdin, stdout, stderr and `fds`."""
    keep = sorted({0, 1, 2, *fds})
    for lo, hi in zip([-1] + keep, keep + [os.sysconf("SC_OPEN_MAX")]):
        if hi - lo > 1:
            os.closerange(lo + 1, hi)


class Forked:
    """The judge's handle on a forked process (the template, a kernel process): the part of subprocess.Popen it uses."""

    def __init__(self, pid):
        self.pid = pid
        self.returncode = None

    def poll(self):
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                self.returncode = -9   # reaped elsewhere (a kill_tree of the judge's): it was killed
                return self.returncode
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout=None):
        import subprocess
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"kernel process {self.pid}", timeout)
            time.sleep(0.002)
        return self.returncode

    def kill(self):
        os.kill(self.pid, 9)


class Template:
    """The judge's side: forks the template process and asks it for kernel processes."""

    def __init__(self, device, places):
        """`places`: the cells' folders (remote.cell_places), in the template's environment and so in every fork's."""
        from kgo_harness import procs
        from kgo_harness.judge import cellfs
        self.device = device
        key = (cellfs.stored_triton_key(), cellfs.triton_key_file()) if device == "cuda" else (None, None)
        ours, theirs = socket.socketpair()
        pid = os.fork()
        if pid == 0:
            try:
                procs.unprofile()
                # None of the judge's descriptors (its requests, its results channel) stays; stdin reads nothing.
                os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
                _close_all_but(theirs.fileno())
                env = {**procs.device_env(device), **places}
                os.environ.clear()
                os.environ.update(env)
                serve(theirs.fileno(), device, key)
            finally:
                os._exit(0)
        theirs.close()
        self.proc = Forked(pid)
        self.sock = ours
        self.reader = ours.makefile("r")
        self.ready = None

    def _next(self):
        line = self.reader.readline()
        if not line:
            raise OSError("the kernel processes' template exited")
        return json.loads(line)

    def fork(self, to_kernel_r, from_kernel_w, folder):
        """A Forked handle of a new kernel process on these pipe ends; OSError when the template cannot."""
        if self.ready is None:
            msg = self._next()
            self.ready = bool(msg.get("ready"))
            if not self.ready:
                raise OSError(str(msg.get("error")))
        if not self.ready:
            raise OSError("the kernel processes' template did not start")
        socket.send_fds(self.sock, [json.dumps({"folder": folder, "judge": os.getpid()}).encode()],
                        [to_kernel_r, from_kernel_w])
        msg = self._next()
        if "pid" not in msg:
            raise OSError(str(msg.get("error")))
        return Forked(int(msg["pid"]))

    def close(self):
        try:
            self.sock.close()
            self.proc.kill()
            self.proc.wait(timeout=10)
        except Exception:
            pass
