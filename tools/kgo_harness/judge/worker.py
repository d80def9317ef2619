"""The worker: a child process (own process group) that imports torch once, loads kernels, and runs
requests from its stdin, reporting progress and results as JSON lines on a dedicated file descriptor.
Its stdout is redirected to stderr so prints from kernels cannot corrupt the protocol."""
import functools
import json
import math
import os
import sys
import time
import traceback


def _default(obj):
    if hasattr(obj, "item"):
        return obj.item()
    if isinstance(obj, (set, tuple)):
        return list(obj)
    return str(obj)


def _clean(value):
    """JSON has no NaN/Inf: they become null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


class Channel:
    """The judge's messages to the supervisor; each carries the token of the request it answers (`nonce`)."""

    def __init__(self, fd):
        self.f = os.fdopen(fd, "w", buffering=1)
        self.nonce = None

    def __call__(self, msg):
        if self.nonce is not None:
            msg = {**msg, "nonce": self.nonce}
        self.f.write(json.dumps(_clean(msg), default=_default) + "\n")
        self.f.flush()


POOL = None


def main(fd, device, kernels=True):
    """Serves requests from stdin. Without `kernels` (a one-shot request that runs no kernel: env) no
    kernel process or template is started, which would import torch a second time for nothing."""
    global POOL
    from kgo_harness import procs
    from kgo_harness.judge import remote
    procs.die_with_parent()
    procs.become_subreaper()
    emit = Channel(fd)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    start = time.perf_counter()
    spare = spares(os.environ.get("KGO_HARNESS_SPARE"), device)
    forked = kernels and remote.template_wanted(device)
    first = None
    if forked and device == "cuda" and "torch" not in sys.modules:
        # A fork of the template could only follow this import (torch, the template's start, then the fork's own
        # CUDA context); a kernel process spawned now makes its import and context beside this one's. On an H200
        # that is about 1 s of a cold check. The kernel processes after it are forks.
        first = remote.KernelProcess(device)
    if not forked:   # a template must fork before CUDA starts in this process
        procs.prime_cuda(device)
    if kernels and not forked:
        POOL = remote.Pool(device, keep=spare)   # the kernel's process imports torch while this one does
    procs.collect_later()
    try:
        import torch  # noqa: F401
    except Exception as e:
        emit({"type": "fatal", "message": f"cannot import torch/triton in the worker: {type(e).__name__}: {e}; "
                                          "pip install -r tools/requirements.txt"})
        os._exit(4)
    if forked:
        # The template is a fork of this process, made now: after torch's import (one import, not two: about
        # 2 s of CPU each) and before any request, so it holds nothing of one. CUDA may start here after it.
        POOL = remote.Pool(device, keep=spare, first=first)
        procs.prime_cuda(device)
    prepare(device)
    procs.freeze_heap()
    try:
        if POOL is not None:
            POOL.wait_ready()  # within the worker's start limit, not the request's
    except Exception as e:
        emit({"type": "fatal", "message": f"the kernel's process could not start: {e}"})
        os._exit(4)
    emit({"type": "ready", "import_s": time.perf_counter() - start, "pid": os.getpid()})
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        req = json.loads(line)
        if req.get("command") == "shutdown":
            break
        emit.nonce = req.pop("nonce", None)
        try:
            result = handle(req, emit)
        except Crash as c:
            emit({"type": "crash", "case": c.case, "judge_ok": c.judge_ok, "untrusted": _crowded(c, req)})
            sys.stderr.flush()
            if c.judge_ok:
                POOL.discard()
                continue
            _close_pool()
            os._exit(3)
        except Exception as e:
            result = {"verdict": "ERROR", "message": f"harness error: {type(e).__name__}: {e}",
                      "error": traceback.format_exc()[-3000:]}
        emit({"type": "result", "result": result})
        if POOL is not None:
            POOL.refill()
        procs.profile_checkpoint()
    _close_pool()
    os._exit(0)


def _crowded(crash, req):
    """For a crash that the kernel's process reported as running out of GPU memory: why the device's memory, held
    by other processes, is to blame instead (envinfo.memory_held_by_others), else None."""
    from kgo_harness.judge import envinfo, remote
    cause = crash.__cause__ or crash.__context__
    while cause is not None and not isinstance(cause, remote.KernelOutOfMemory):
        cause = cause.__cause__ or cause.__context__
    if cause is None or req.get("device", "cuda") != "cuda":
        return None
    try:
        return envinfo.memory_held_by_others(req.get("memory_limit_mb"))
    except Exception:   # no reading, no excuse: the crash stands
        return None


def spares(setting, device):
    """How many spare kernel processes a warm judge keeps (KGO_HARNESS_SPARE: a count, or `auto`, which the
    supervisor sets for a warm harness): two on a GPU, where a spare's start (torch, Triton, a CUDA context) takes
    longer than a short job, so that back-to-back identities (a sweep) find one ready; one on the CPU."""
    if not setting:
        return 0
    if setting == "auto":
        return 2 if device == "cuda" else 1
    return max(0, int(setting))


def _close_pool():
    if POOL is not None:
        POOL.close()


def prepare(device):
    """The judge's own first-request start-up (its modules, the CUDA context, the environment block), done while
    the kernel's process is still starting instead of after it. Best effort: a failure here shows again, with its
    message, in the request."""
    try:
        import torch
        from kgo_harness.judge import bench, check
        from kgo_harness.judge import envinfo  # noqa: F401
        if device == "cuda" and torch.cuda.is_available():
            torch.zeros(1, device="cuda").add_(1).sum().item()
            envinfo.environment(device)
    except Exception:
        pass


class Crash(Exception):
    """A CRASH verdict. With `judge_ok` only the kernel's process failed (it died or ran out of memory): this
    process ends it and goes on serving. Otherwise (a CUDA error) this process exits and a fresh one starts."""

    def __init__(self, case, judge_ok=False):
        super().__init__(case.get("message", "crash"))
        self.case = case
        self.judge_ok = judge_ok


def handle(req, emit):
    import torch
    from kgo_harness.judge import bench, check, envinfo, remote
    from kgo_harness.formats.contracts import LoadError, Problem, import_file, problem_setup

    started = time.perf_counter()
    cmd = req["command"]
    device = req["device"]  # normalized: protocol.normalize filled the schema's default
    ledger = {"device_s": 0.0, "compile_s": 0.0}
    if cmd == "env":
        rep = envinfo.env_report(device, req.get("tools"))
        rep["verdict"] = "PASS" if rep["ready"] else "FAIL"
        rep["message"] = "ready" if rep["ready"] else "missing: " + "; ".join(rep["missing"])
        return rep
    if device == "cuda" and not torch.cuda.is_available():
        return {"verdict": "ERROR", "message": "no CUDA device is visible to torch; run on a GPU machine or pass "
                                               "--device cpu for the interpreter (correctness only)",
                "error": "no GPU"}
    if POOL is None:
        raise RuntimeError(f"this judge was started for a request that runs no kernel, not for '{cmd}'")
    res = {"environment": envinfo.environment(device)}
    srcs = remote.sources(req)
    remote.SECONDS.clear()
    if req.get("_only_case") is not None:
        POOL.discard()   # isolate=case: each case in a kernel process of its own
    kp, warm_kernel = POOL.get(remote.identity(req, srcs), remote.compile_key(req, srcs), timed=cmd == "bench")
    res["kernel_process"] = {"pid": kp.proc.pid, "warm": warm_kernel, "started": kp.started}
    emit({"type": "kernel", "pid": kp.proc.pid})   # what the supervisor ends after a timeout
    try:
        kp.wait_ready()
    except remote.KernelDied as d:
        raise Crash({"status": "CRASH", "message": f"the kernel's process died while starting: {d}"}, judge_ok=True)
    res["cell"], refused = remote.cell_summary(kp.cell, bool(req.get("unconfined")))
    if refused:
        POOL.discard()
        res.update({"verdict": "ERROR", "message": refused, "error": "no confinement", "culprit": "environment"})
        return res
    try:
        # imported before the kernel's code runs anywhere; a definition.json (sol-execbench) is read by its adapter
        if req.get("reference") and req["reference"].endswith(".py"):
            import_file(req["reference"], next(s["sha256"] for s in srcs if s["path"] == req["reference"]))
        if req.get("problem"):   # the problem's setup() (seed, fmh66), read before the kernel's code runs
            problem_setup(req["problem"], next(s["sha256"] for s in srcs if s["path"] == req["problem"]))
        emit({"type": "loading"})   # the kernel's import, its own compiles included, has a limit of its own
        info = kp.call("load", request=req)  # the kernel role never imports ref.py
        emit({"type": "loaded"})
        problem = Problem(req, "reference", info)
        if info.get("reference_in_kernel_file"):
            # The reference lives in the kernel's own file (tritonbench): it runs in a second process, so
            # neither this process runs the file's code nor the kernel's process holds the reference's outputs.
            problem.reference_process = POOL.helper()
            problem.reference_process.call("load", request=req, role="baseline")
            problem.run_baseline = functools.partial(check.baseline_outputs, problem.reference_process, device)
    except remote.KernelHack as h:
        POOL.discard()
        res.update({"verdict": "REWARD_HACK", "message": str(h)})
        return res
    except remote.KernelDied as d:
        raise Crash({"status": "CRASH", "message": f"the kernel's process died while loading: {d}"}, judge_ok=True)
    except (LoadError, remote.KernelError) as e:
        if device == "cuda" and check.is_cuda_fatal(e):
            raise Crash({"status": "CRASH", "message": f"CUDA error while loading: {e}"})
        res.update({"verdict": "FAIL", "message": str(e) if isinstance(e, LoadError) or e.load_error else
                    f"loading the kernel failed: {e}", "culprit": getattr(e, "culprit", None) or "import",
                    "needs_gpu": getattr(e, "needs_gpu", False)})
        return res
    except Exception as e:
        res.update({"verdict": "FAIL", "message": f"loading the reference failed: {type(e).__name__}: {e}"})
        return res
    res["sources"] = remote.sources(req, kp.outside(req, info.get("local_files") or []))
    rewritten = remote.rewritten(srcs, res["sources"])
    if rewritten:
        POOL.discard()
        res.update({"verdict": "REWARD_HACK", "message": rewritten})
        return res
    res.update({"kernel_sha256": problem.sha, "contract": problem.contract,
                "op": problem.op.name if problem.op else None, "entry": info.get("entry")})
    ledger["compile_s"] += float(info.get("compile_s") or 0.0)
    try:
        if cmd == "check":
            res.update(check.run_check(req, problem, kp, emit))
            ledger["device_s"] += check.LEDGER["device_s"]
            ledger["compile_s"] += check.LEDGER["compile_s"]
        elif cmd == "bench":
            POOL.settle()
            res.update(bench.run_bench(req, problem, kp, emit, ledger, POOL.still))
        elif cmd == "run-once":
            if problem.inputs_from == "judge":
                shape = list(req["shapes"][0])
                check.provide(problem, kp, problem.case(shape, req["seed"], 0), shape, req["seed"], 0)
            got = kp.call("run_once", request=req)
            names = got["launches"]
            shape = list(req["shapes"][0])
            res.update({"verdict": "PASS", "shape": shape, "launches": names,
                        "message": f"ran once at {shape}" + (f": {', '.join(names)}" if names else "")})
    except check.Fatal as f:
        raise Crash(f.args[0], judge_ok=isinstance(f.__cause__, remote.KernelDied))
    except remote.KernelDied as d:
        raise Crash({"status": "CRASH", "message": str(d)}, judge_ok=True)
    except remote.KernelHack as h:
        res.update({"verdict": "REWARD_HACK", "message": str(h)})
    except (LoadError, remote.KernelError) as e:
        if device == "cuda" and check.is_cuda_fatal(e):
            raise Crash({"status": "CRASH", "message": f"CUDA error: {e}"[:2000]})
        res.update({"verdict": "FAIL", "message": str(e) if isinstance(e, LoadError) or e.load_error else
                    f"the kernel raised {e}"[:2000], "culprit": getattr(e, "culprit", None),
                    "needs_gpu": getattr(e, "needs_gpu", False)})
    except Exception as e:
        if device == "cuda" and check.is_cuda_fatal(e):
            raise Crash({"status": "CRASH", "message": f"CUDA error: {type(e).__name__}: {e}"[:2000]})
        res.update({"verdict": "FAIL", "message": f"the kernel raised {type(e).__name__}: {e}"[:2000],
                    "error": traceback.format_exc()[-3000:]})
    if cmd in ("check", "bench") and hasattr(problem.adapter, "roofline"):
        res["roofline"] = problem.adapter.roofline(problem)   # what kgo roofline can count for this problem
    rewritten = remote.rewritten(res["sources"], remote.sources(req, [x["path"] for x in res["sources"]]))
    if rewritten:
        res.update({"verdict": "REWARD_HACK", "message": rewritten})
    if res.get("verdict") == "REWARD_HACK":
        POOL.discard()
    if device == "cuda":
        # Partly the kernel's process's word: bounded by the request's time on this process's clock.
        from kgo_harness import timing
        timing.note_busy(min(ledger["device_s"], time.perf_counter() - started) * 1e3)
    res["timing"] = {"device_s": ledger["device_s"], "compile_s": ledger["compile_s"],
                     "warmup_s": ledger.get("warmup_s", 0.0), "warmup_credit_s": ledger.get("warmup_credit_s", 0.0),
                     **{f"kernel_{op}_s": round(s, 4) for op, s in sorted(remote.SECONDS.items())}}
    return res
