"""The supervisor: the process kgo starts. It validates the request, runs it in a worker child that leads
its own process group, enforces per-case and total timeouts by killing that group, turns a dead worker into
a CRASH verdict, and writes exactly one JSON result. `serve` keeps the worker warm between requests.
Standard library only, so it starts fast and survives a broken torch install."""
import collections
import json
import os
import pathlib
import secrets
import select
import signal
import subprocess
import sys
import threading
import time

from kgo_harness import forker_client, procs, protocol

ENTRY = pathlib.Path(__file__).resolve().parent  # the package folder: Python runs its __main__.py
WORKER_START_TIMEOUT_S = 180.0
RECLAIM_S = 3.0   # after a timeout, how long the judge has to report its kernel process's end before it is killed


def log(text):
    sys.stderr.write(f"kgo-harness: {text}\n")
    sys.stderr.flush()


def _remove_cells(judge_pid):
    """The cell folders of a judge that did not close them itself (killed after a timeout or a crash)."""
    try:
        from kgo_harness.judge import cellfs
        cellfs.remove_of(judge_pid)
    except Exception:
        pass


def _forked(env, device, kernels, write_fd):
    if not forker_client.wanted():
        return None
    try:
        return forker_client.start(env, device, kernels, write_fd)
    except Exception as e:   # the judge then starts as a fresh interpreter, as without the template
        log(f"the judges' template did not serve ({type(e).__name__}: {e}); starting a judge of its own")
        return None


class Worker:
    def __init__(self, device, kernels=True):
        self.device = device
        read_fd, write_fd = os.pipe()
        env = procs.device_env(device)
        env["PYTHONUNBUFFERED"] = "1"
        self.started = time.perf_counter()
        # A fork of the judges' template where one serves (or can start) this identity, else a fresh interpreter.
        self.proc = _forked(env, device, kernels, write_fd)
        if self.proc is None:
            self.proc = subprocess.Popen([sys.executable, "-I", "-u", str(ENTRY), "__worker__", str(write_fd), device,
                                          *([] if kernels else ["judge-only"])],
                                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                         pass_fds=(write_fd,), start_new_session=True, env=env, text=True)
        os.close(write_fd)
        self.fd = read_fd
        self.buf = b""
        self.tail = collections.deque(maxlen=60)
        self.thread = threading.Thread(target=self._pump_stderr, daemon=True)
        self.thread.start()
        self.import_s = None
        self.pid = self.proc.pid
        self.alive = True

    def _pump_stderr(self):
        for line in self.proc.stderr:
            self.tail.append(line.rstrip("\n"))
            sys.stderr.write(line)
        sys.stderr.flush()

    def stderr_tail(self, n=15):
        return "\n".join(list(self.tail)[-n:])

    def send(self, obj):
        self.proc.stdin.write(json.dumps(obj) + "\n")
        self.proc.stdin.flush()

    def next(self, deadline):
        """The next message, "timeout" when the deadline passed, or "eof" when the worker is gone."""
        while b"\n" not in self.buf:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                return "timeout"
            ready, _, _ = select.select([self.fd], [], [], min(remaining, 1.0))
            if not ready:
                continue
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                return "eof"
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def kill(self):
        if self.alive:
            self._kill_forked_tree()
            # The group, and every descendant that left it (setsid): they were re-parented to this subreaper.
            procs.kill_tree(self.pid, no_reap={self.pid})
            self.proc.wait()
            self.alive = False
            os.close(self.fd)
            _remove_cells(self.pid)

    def close(self):
        if not self.alive:
            return
        try:
            self.send({"command": "shutdown"})
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except Exception:
            pass
        self.kill()

    def abandon(self):
        """Once the answer is out: SIGKILLs the worker's tree without waiting for it to end (a judge's exit tears
        down its CUDA context, which is nobody's time to wait for) and removes its cells' folders."""
        if not self.alive:
            return
        self._kill_forked_tree()
        for pid in [self.pid, *procs.descendants(os.getpid())]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.alive = False
        _remove_cells(self.pid)

    def _kill_forked_tree(self):
        """A judge forked by the template is not this process's descendant, nor are its kernel processes: they are
        killed from a snapshot of its tree (its cells' roots take their namespaces with them)."""
        if isinstance(self.proc, forker_client.ForkedJudge):
            for pid in procs.descendants(self.pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    def exit_description(self):
        self.proc.wait()
        self.thread.join(timeout=2)
        rc = self.proc.returncode
        if rc is not None and rc < 0:
            try:
                name = signal.Signals(-rc).name
            except ValueError:
                name = f"signal {-rc}"
            return f"the worker died from {name}"
        return f"the worker exited with status {rc}"


class Session:
    """Holds the (warm) worker across requests; without `kernels` (one request that runs no kernel) the worker
    starts no kernel process."""

    def __init__(self, kernels=True):
        self.kernels = kernels
        self.worker = None
        self.restarts = 0
        self.served = 0

    def get(self, device, deadline):
        warm = self.worker is not None and self.worker.alive and self.worker.device == device
        if not warm:
            if self.worker is not None:
                self.worker.close()
                self.restarts += 1 if self.served else 0
            self.worker = Worker(device, self.kernels)
            msg = self.worker.next(deadline)
            if not isinstance(msg, dict) or msg.get("type") != "ready":
                detail = msg.get("message") if isinstance(msg, dict) else (
                    "timed out starting" if msg == "timeout" else self.worker.exit_description())
                self.worker.kill()
                self.worker = None
                raise RuntimeError(f"the harness worker could not start: {detail}")
            self.worker.import_s = msg["import_s"]
        return self.worker, warm

    def close(self):
        if self.worker is not None:
            self.worker.close()
            self.worker = None


def _partial(res, plan, done, failing_index, failing_case):
    if plan is None:
        return
    cases = []
    for i, p in enumerate(plan):
        if i in done:
            cases.append(done[i])
        elif i == failing_index and failing_case is not None:
            cases.append({**p, **failing_case})
        else:
            cases.append({**p, "status": "SKIPPED", "message": "not run after the failure above"})
    res["cases"] = cases


def _exchange(worker, req, deadline, res, done=None):
    """Sends one request and follows its messages; returns the worker's result dict or None (res set). Each message
    must carry this request's token: one that does not was written by something other than the judge answering
    this request, and the request ends as REWARD_HACK with the judge killed."""
    nonce = secrets.token_hex(16)
    worker.send({**req, "nonce": nonce})
    plan, done, current, case_deadline, label = None, dict(done or {}), None, None, ""
    loading = None   # (when the kernel's import began, the request's deadline then) while it runs
    current_timeout = float(req["case_timeout_s"])
    kernel_pid = None
    while True:
        msg = worker.next(min(deadline, case_deadline or deadline))
        if msg == "timeout":
            if not _reclaim(worker, kernel_pid, nonce):
                worker.kill()
            case_timed_out = case_deadline is not None and case_deadline <= deadline
            if loading is not None:
                what = (f"the kernel's import (its own compiles included) exceeded its {req['load_timeout_s']:g} s "
                        "limit (load_timeout_s)")
            elif case_timed_out:
                what = f"{label} exceeded its {current_timeout:g} s timeout"
            else:
                what = f"the request exceeded its total timeout of {req['total_timeout_s']:g} s" + (
                    f" (during {label})" if label else "")
            res.update({"verdict": "TIMEOUT_FAIL", "message": what})
            _partial(res, plan, done, current, {"status": "TIMEOUT_FAIL", "message": what})
            return None
        if msg == "eof":
            why = worker.exit_description()
            text = f"{why} during {label or req['command']}; stderr tail:\n{worker.stderr_tail()}"
            worker.kill()
            res.update({"verdict": "CRASH", "message": text.splitlines()[0] if label else text})
            res["error"] = text
            _partial(res, plan, done, current, {"status": "CRASH", "message": text})
            return None
        if msg.get("nonce") != nonce:
            worker.kill()
            res.update({"verdict": "REWARD_HACK", "message": "the judge's channel carried a message that does not "
                        "answer this request (its token is missing or wrong): something other than the judge wrote "
                        "it; nothing of this request is trusted"})
            return None
        kind = msg.get("type")
        if kind == "kernel":
            kernel_pid = int(msg["pid"])
        elif kind == "loading":
            loading = (time.perf_counter(), deadline)
            deadline = loading[0] + float(req["load_timeout_s"])
        elif kind == "loaded" and loading is not None:
            deadline = loading[1] + (time.perf_counter() - loading[0])   # the import is outside the total
            loading = None
        elif kind == "plan":
            plan = msg["cases"]
        elif kind == "case_start":
            current, label = msg["index"], msg.get("label", "")
            current_timeout = float(msg.get("timeout_s") or req["case_timeout_s"])
            case_deadline = time.perf_counter() + current_timeout
            total = len(plan) if plan else "?"
            # Steps after the planned cases (the delegation run) are named, not numbered past the total.
            step = f"{current + 1}/{total}" if not plan or current < len(plan) else "after the cases"
            log(f"[{step}] {req['command']} {label}")
        elif kind == "case_done":
            done[msg["index"]] = msg["case"]
            if msg["index"] == current:   # the judge may have begun the next case before deciding this one
                current, case_deadline = None, None
        elif kind == "crash":
            case = msg.get("case") or {}
            if not msg.get("judge_ok"):   # else only the kernel's process died, and the worker serves on
                worker.proc.wait()
                worker.kill()
            text = case.get("message", "CUDA error")
            res.update({"verdict": "CRASH", "message": f"{label}: {text}" if label else text})
            if msg.get("untrusted"):   # the judge found the device's memory held by other processes
                res.update({"verdict": "UNTRUSTED", "message": str(msg["untrusted"])})
            _partial(res, plan, done, current, {"status": "CRASH", **case})
            return None
        elif kind == "result":
            return msg["result"]


def _reclaim(worker, kernel_pid, nonce):
    """After a timeout: ends the kernel's process, which the judge is waiting on, and gives the judge RECLAIM_S to
    report it (a CRASH it survives). True when it did, so the worker serves on; False when the judge itself is
    stuck (in the reference, say) or exits: then the caller kills it."""
    if kernel_pid is None or not worker.alive:
        return False
    try:
        os.kill(kernel_pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    deadline = time.perf_counter() + RECLAIM_S
    while True:
        msg = worker.next(deadline)
        if not isinstance(msg, dict) or msg.get("nonce") != nonce:
            return False
        if msg.get("type") == "result" or (msg.get("type") == "crash" and msg.get("judge_ok")):
            return True
        if msg.get("type") == "crash":
            return False


def run_request(req, session):
    """Runs one normalized request; always returns a result dict."""
    start = time.perf_counter()
    res = protocol.skeleton(req["command"], req)
    if req["command"] == "catalog":   # static tables: no judge (a torch import, about 2 s of CPU) is started
        from kgo_harness.formats import ops
        res.update({"verdict": "PASS", "message": f"{len(ops.OPS)} ops", "ops": ops.catalog(),
                    "timing": {"wall_s": time.perf_counter() - start}})
        return res
    device = req.get("device", "cuda")
    try:
        worker, warm = session.get(device, start + WORKER_START_TIMEOUT_S)
    except RuntimeError as e:
        if req["command"] == "env":
            from kgo_harness.judge import envinfo
            rep = envinfo.env_report(req.get("device", "cuda"), req.get("tools"))
            res.update(rep)
            res["missing"] = rep["missing"] + [str(e)]
            res.update({"verdict": "FAIL", "ready": False, "message": str(e)})
        else:
            res.update({"verdict": "CRASH", "message": str(e), "error": str(e)})
        res["timing"] = {"wall_s": time.perf_counter() - start}
        return res
    worker_start_s = 0.0 if warm else time.perf_counter() - start
    # The total timeout covers the work, not the worker's start (importing torch), which has its own limit.
    deadline = time.perf_counter() + float(req["total_timeout_s"])
    res["worker"] = {"warm": warm, "pid": worker.pid, "restarts": session.restarts}
    if req.get("isolate") == "case" and req["command"] == "check":
        got = _isolated(req, session, deadline, res)
    else:
        got = _exchange(worker, req, deadline, res)
    session.served += 1
    if got is not None:
        res["warnings"] = list(res.get("warnings", [])) + list(got.pop("warnings", []))
        res.update(got)
    timing = dict(res.get("timing") or {})
    timing.update({"wall_s": time.perf_counter() - start, "worker_start_s": worker_start_s,
                   "import_s": 0.0 if warm else worker.import_s})
    if timing.get("device_s") is not None:
        timing["host_s"] = timing["wall_s"] - timing["device_s"]
    res["timing"] = timing
    if res["verdict"] == "ERROR" and not res.get("error"):
        res["error"] = res["message"]
    return res


def _isolated(req, session, deadline, res):
    """isolate=case: every case in a fresh kernel process (the judge discards its last one); a last one runs
    delegation and the verdict. The judge is restarted only where it died (a CUDA error)."""
    cases = []
    while True:
        started = time.perf_counter()
        worker, _ = session.get(req.get("device", "cuda"), started + WORKER_START_TIMEOUT_S)
        deadline += time.perf_counter() - started  # a worker's start has its own limit
        done = {i: c for i, c in enumerate(cases)}
        got = _exchange(worker, dict(req, _only_case=len(cases), _prior_cases=cases), deadline, res, done)
        if got is None or "tolerance" in got:
            return got
        cases = cases + got.get("cases", [])


def read_request(text):
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise protocol.RequestError(f"the request is not valid JSON: {e}")


def one_shot(command, text, deliver):
    """Runs one request and hands its result and exit status to `deliver` before the worker is ended."""
    try:
        req = protocol.normalize(read_request(text), command)
    except protocol.RequestError as e:
        deliver(protocol.error_result(command, str(e)), 2)
        return 2
    session = Session(kernels=req["command"] in protocol.NEEDS_KERNEL)
    try:
        res = run_request(req, session)
    except BaseException:
        session.close()
        raise
    deliver(res, 0)
    if session.worker is not None and not os.environ.get("KGO_HARNESS_PROFILE"):  # a profile is written at its end
        session.worker.abandon()
    session.close()
    return 0


def serve():
    session = Session()
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                raw = read_request(line)
                if isinstance(raw, dict) and raw.get("command") == "shutdown":
                    break
                req = protocol.normalize(raw)
                res = run_request(req, session)
            except protocol.RequestError as e:
                res = protocol.error_result(raw.get("command") if isinstance(raw, dict) else "check", str(e))
            sys.stdout.write(json.dumps(res, allow_nan=False) + "\n")
            sys.stdout.flush()
    finally:
        session.close()
    return 0


def serve_socket(path, idle_s):
    """The warm worker behind a Unix socket (`kgo harness start`): one request line per connection, one
    result line back. `{"command": "ping"}` answers with this process's state; `{"command": "shutdown"}`
    ends it, as does `idle_s` seconds without a request. The socket appears only once it listens (bound
    under a temporary name, then renamed) and is removed on the way out."""
    import socket
    started = time.time()
    listener = procs.KeyedListener(path, 8)
    srv = listener.sock
    srv.settimeout(idle_s)
    session = Session()
    try:
        while True:
            try:
                conn, _ = srv.accept()
            except socket.timeout:
                break
            with conn:
                conn.settimeout(60.0)
                data, keyed = b"", None
                try:
                    while data.count(b"\n") < (2 if keyed else 1):
                        chunk = conn.recv(1 << 16)
                        if not chunk:
                            break
                        data += chunk
                        if keyed is None and b"\n" in data:
                            keyed = listener.keyed(data.partition(b"\n")[0])
                except OSError:
                    continue
                raw = None
                line = data.partition(b"\n")[2]
                try:
                    if not keyed:
                        raise protocol.RequestError(
                            "refused: the request does not carry this harness's key (the first line, read from "
                            f"{listener.key_path}); only kgo, run by this harness's user, can send requests here")
                    raw = read_request(line.decode("utf-8", "replace"))
                    command = raw.get("command") if isinstance(raw, dict) else None
                    if command in ("ping", "shutdown"):
                        w = session.worker
                        res = {"verdict": "PASS", "message": command, "pid": os.getpid(), "served": session.served,
                               "restarts": session.restarts, "uptime_s": time.time() - started,
                               "python": sys.executable, "idle_s": idle_s,
                               "worker": {"device": w.device, "alive": w.alive} if w is not None else None}
                    else:
                        res = run_request(protocol.normalize(raw), session)
                except protocol.RequestError as e:
                    res = protocol.error_result(raw.get("command") if isinstance(raw, dict) else "check", str(e))
                conn.settimeout(None)
                try:
                    conn.sendall((json.dumps(res, allow_nan=False) + "\n").encode())
                except OSError:
                    pass
                if isinstance(raw, dict) and raw.get("command") == "shutdown":
                    break
    finally:
        session.close()
        listener.close()
    return 0


USAGE = """usage: kgo_harness <check|bench|env|run-once|catalog> [--request FILE]   (request JSON on stdin)
       kgo_harness serve                                                 (one request per line)
       kgo_harness serve --socket PATH [--idle SECONDS]                  (kgo harness start)
Protocol: tools/kgo_harness/PROTOCOL.md; schemas: schemas/harness/*.schema.json"""


def _contain(daemon, warm):
    """Orphans of the kernel's processes come back here to be killed; SIGTERM/SIGINT end the whole harness;
    unless it is the daemon (its own session) it also ends when kgo, its parent, does. A warm harness keeps
    a spare kernel process."""
    procs.become_subreaper()

    def stop(signum, _frame):
        procs.kill_tree()
        os._exit(128 + signum)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if not daemon:
        procs.die_with_parent(signal.SIGTERM)
    if warm:
        os.environ["KGO_HARNESS_SPARE"] = "auto"
    if daemon:   # a warm harness starts a judge once: a template beside it would only hold memory
        os.environ["KGO_JUDGE_FORK"] = "0"


def cli(argv):
    if argv and argv[0] not in ("-h", "--help"):
        _contain(daemon=argv[0] == "serve" and "--socket" in argv, warm=argv[0] == "serve")
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    command = argv[0]
    if command == "serve" and len(argv) in (3, 5) and argv[1] == "--socket":
        idle = float(argv[4]) if len(argv) == 5 and argv[3] == "--idle" else 900.0
        return serve_socket(argv[2], idle)
    if command == "serve":
        return serve()
    if command not in protocol.COMMANDS or command == "shutdown":
        sys.stderr.write(f"kgo-harness: unknown command '{command}'\n{USAGE}\n")
        return 2
    if len(argv) == 3 and argv[1] == "--request":
        text = pathlib.Path(argv[2]).read_text()
    else:
        text = sys.stdin.read()
        if not text.strip():
            text = "{}" if command in ("env", "catalog") else text
    def deliver(res, _rc):
        sys.stdout.write(json.dumps(res, allow_nan=False, indent=1) + "\n")
        sys.stdout.flush()
    return one_shot(command, text, deliver)
