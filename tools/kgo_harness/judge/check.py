"""`check` on the judge's side: fresh inputs per trial, the float64 reference, the comparison, determinism,
stream-ordering diagnosis and delegation. The kernel runs in its own process (remote.py); only its outputs
come here, as bytes. Nothing in this process runs the kernel's code."""
import time

import torch

from kgo_harness.judge import checks, compare
from kgo_harness.formats import cpu_honesty, ops
from kgo_harness import launches, wire
from kgo_harness.formats.contracts import LoadError
from kgo_harness.protocol import is_cuda_fatal, case_seed, merge_verdicts
from kgo_harness.judge.remote import KernelDied, KernelError, KernelHack

# Seconds the kernel's process spent running cases, and first-call (compile) time of this check.
LEDGER = {"device_s": 0.0, "compile_s": 0.0}


class Fatal(Exception):
    """The kernel's process died or its CUDA context is unusable (verdict CRASH)."""


class Hacked(Exception):
    """The kernel tampered with the measurement (verdict REWARD_HACK)."""


def plan_shapes(req, problem):
    """The shapes to test and the set of those that are kgo's edge shapes (not asked for by the user)."""
    # A format with named dims maps (and validates) the requested shapes itself.
    shapes = problem.default_shapes() if problem.adapter is not None else (
        [list(s) for s in req["shapes"]] or problem.default_shapes())
    asked = {tuple(s) for s in shapes}
    if req["edge_shapes"]:
        shapes += problem.edge_shapes(shapes)
    seen, out = set(), []
    for s in shapes:
        if tuple(s) not in seen:
            seen.add(tuple(s))
            out.append(s)
    return out, {tuple(s) for s in out} - asked


def reference_of(case):
    """The case's float64 reference; an exception there is the reference's fault, not the kernel's."""
    try:
        return case.reference64()
    except LoadError:
        raise
    except Exception as e:
        raise LoadError(f"the reference raised {type(e).__name__}: {e}"[:2000], culprit="reference") from e


def judge(case, outs, tol):
    refs = case.reference64()
    names = case.output_names if len(case.output_names) == len(refs) else [f"out{i}" for i in range(len(refs))]
    if outs is None:
        return [], "the kernel returned None; op mode must return the output tensor"
    if len(outs) != len(refs):
        return [], f"the kernel produced {len(outs)} outputs, the reference {len(refs)}"
    reps = [compare.compare(n, o, r, tol["atol"], tol["rtol"], tol["max_rel_err"], dt, tol.get("atol_scale"))
            for n, o, r, dt in zip(names, outs, refs, case.expected_dtypes())]
    bad = [r["message"] for r in reps if not r["passed"]]
    return reps, "; ".join(bad)


def summarize(case_rep, reps):
    vals = lambda k: [r[k] for r in reps]
    finite = lambda xs: [x for x in xs if x is not None]
    any_nonfinite = any(r["nonfinite"] or r["max_abs_err"] is None for r in reps)
    case_rep["max_abs_err"] = None if any_nonfinite or not reps else max(finite(vals("max_abs_err")), default=None)
    case_rep["mean_abs_err"] = max(finite(vals("mean_abs_err")), default=None)
    case_rep["rel_err"] = None if any_nonfinite or not reps else max(finite(vals("rel_err")), default=None)
    case_rep["allclose"] = bool(reps) and all(vals("allclose"))
    case_rep["mismatches"] = sum(vals("mismatches")) if reps else None
    case_rep["first_bad_index"] = next((r["first_bad_index"] for r in reps if r["first_bad_index"]), None)
    case_rep["outputs"] = [{k: v for k, v in r.items() if k != "passed"} for r in reps]


IPC = {"on": True}  # CUDA outputs cross as driver IPC handles (wire.py) until opening one fails here; then as bytes


def ipc(device, problem=None):
    return device == "cuda" and IPC["on"]


def baseline_outputs(rp, device, args):
    """Outputs of a reference that lives in the kernel's own file (tritonbench's baseline), run by `rp`, a second
    process of the kernel's identity, on `args` (Problem.run_baseline)."""
    from kgo_harness.formats.contracts import BaselineError
    tensors = [(f"arg{i}", a) for i, a in enumerate(args) if type(a) is torch.Tensor]
    try:
        got = rp.call("reference", count=len(args), inputs=wire.send(rp.folder, tensors),
                      scalars={str(i): a for i, a in enumerate(args) if isinstance(a, (bool, int, float, str))},
                      ipc=ipc(device))
    except KernelError as e:
        raise BaselineError(str(e)) from e
    return outputs_of(rp, got["outputs"], device)


def outputs_of(kp, message, device):
    try:
        return [v for _, v in wire.receive(kp.folder, message, device)]
    except wire.IpcUnavailable:
        IPC["on"] = False
        return [v for _, v in wire.receive(kp.folder, kp.call("resend", file=message["file"]), device)]


def judge_case(problem, kp, shape, seed, trial, key, ahead=None):
    """The judge's copy of a case (Problem.inputs_from): regenerated from the seed (op and CUDA contracts: the
    same bytes the kernel's process makes), built from the inputs the kernel file's code made there
    (tritonbench; seed and fmh66 only where the request names no problem file), or made here by the problem's
    code and shipped there (seed and fmh66: the problem file's setup(); kernelbench, sol-execbench)."""
    if problem.inputs_from == "judge":
        case = (ahead.take(key) if ahead else None) or problem.case(shape, seed, trial)
        provide(problem, kp, case, shape, seed, trial)
        kp.call("case", shape=shape, seed=seed, trial=trial, key=key)
        return case
    got = kp.call("case", shape=shape, seed=seed, trial=trial, key=key)
    if problem.inputs_from == "kernel":
        inputs = dict(wire.receive(kp.folder, got["inputs"], problem.device))
        inputs.update(got.get("scalars") or {})
        return problem.shipped_case(shape, inputs, got["output_names"])
    return problem.case(shape, seed, trial)


class Ahead:
    """The next case of the plan, inputs and float64 reference made by the judge while the kernel's process runs
    the current one (judge-made inputs only: other inputs come from the kernel's process). Only cases up to
    `limit` bytes are made ahead, so at most two small cases are alive here at once. A failure while making
    one is raised when that case is taken, so it is charged to its own case."""

    def __init__(self, problem, plan, limit):
        self.problem, self.plan, self.limit = problem, plan, limit
        self.index, self.case, self.error = None, None, None

    def make(self, index, current):
        """Makes case `index` if it exists and `current` (the case now running) is small enough."""
        self.index, self.case, self.error = None, None, None
        if self.problem.inputs_from != "judge" or not 0 <= index < len(self.plan) or \
                case_bytes(current) > self.limit:
            return
        shape, trial, seed = self.plan[index]
        self.index = index
        try:
            self.case = self.problem.case(shape, seed, trial)
            reference_of(self.case)
        except Exception as e:   # charged to its own case in take()
            self.error = e

    def take(self, index):
        if index != self.index:
            return None
        case, error = self.case, self.error
        self.index, self.case, self.error = None, None, None
        if error is not None:
            raise error
        return case


def case_bytes(case):
    refs = getattr(case, "_ref", None) or []
    tensors = list(case.input_tensors().values()) + [r for r in refs if isinstance(r, torch.Tensor)]
    return sum(t.numel() * t.element_size() for t in tensors)


def ahead_limit(device):
    """Bytes a case may have for the next one to be made beside it: 1/32 of the device's memory on the GPU."""
    if device == "cuda":
        return torch.cuda.get_device_properties(torch.cuda.current_device()).total_memory // 32
    return 256 * 2 ** 20


def provide(problem, kp, case, shape, seed, trial):
    """Ships a judge-made case's inputs (scalars as JSON) to the kernel's process: on the GPU as CUDA IPC handles
    of staging copies, each in a device allocation of its own (wire.isolated: a handle opens its whole allocation,
    so a copy beside the judge's reference would show it), which the kernel's process copies on receipt; else as
    bytes. The reference runs first: it may settle the inputs (a problem whose domain refuses scaled inputs keeps
    its own)."""
    reference_of(case)
    args = list(case.shipped_args() if hasattr(case, "shipped_args") else case.args)
    tensors = [(f"arg{i}", a) for i, a in enumerate(args) if type(a) is torch.Tensor]
    fields = dict(shape=list(shape), seed=seed, trial=trial, count=len(args),
                  scalars={str(i): a for i, a in enumerate(args) if isinstance(a, (bool, int, float, str))},
                  extra=case.provided_extra() if hasattr(case, "provided_extra") else {})
    if ipc(problem.device):
        staged = []
        try:
            staged = [(n, wire.isolated(t.detach())) for n, t in tensors]
            kp.call("provide", inputs=wire.send(kp.folder, staged, True), **fields)
            return
        except (KernelError, wire.IpcUnavailable) as e:
            if isinstance(e, KernelError) and "IpcUnavailable" not in str(e):
                raise
            IPC["on"] = False
        finally:
            staged = None
            wire.release()
    kp.call("provide", inputs=wire.send(kp.folder, tensors), **fields)


def release_cached(device):
    """Hands the CUDA memory cached for this process's freed tensors back to the device when it is large (an
    eighth of the device, at least 1 GiB: the kernel's process may take half), so the kernel's process, which
    shares the GPU, can use it for the next case."""
    if device != "cuda":
        return
    # The nested form: memory_reserved()/memory_allocated() each flatten every statistic (12 ms a warm check).
    stats = torch.cuda.memory_stats_as_nested_dict()
    if not stats:
        return
    idle = stats["reserved_bytes"]["all"]["current"] - stats["allocated_bytes"]["all"]["current"]
    if idle > max(2 ** 30, torch.cuda.get_device_properties(torch.cuda.current_device()).total_memory // 8):
        torch.cuda.empty_cache()


def invalid_reference(case, refs):
    """A message when the reference is NaN/Inf somewhere although every input is finite (one read from the
    device for all of it)."""
    inputs = [t for t in case.input_tensors().values() if t.dtype.is_floating_point]
    outs = [(i, r) for i, r in enumerate(refs)
            if isinstance(r, torch.Tensor) and r.dtype.is_floating_point and r.numel()]
    if not outs:
        return None
    counts = [(~torch.isfinite(t)).sum() for t in inputs] + [(~torch.isfinite(r)).sum() for _, r in outs]
    got = torch.stack([c.to(device=counts[0].device, dtype=torch.int64) for c in counts]).tolist()
    if any(got[:len(inputs)]):
        return None
    for (i, r), bad in zip(outs, got[len(inputs):]):
        if bad:
            return (f"the reference's output {i} has {bad}/{r.numel()} NaN/Inf values from finite inputs; "
                    "fix ref.py (a NaN reference would accept anything)")
    return None


def diagnose_streams(problem, kp, f, rep, msgs, state, rewind, after_determinism=False):
    """After a failure on the GPU (once per check): if the same run is right with the device synchronized
    around it (and, after a determinism failure, also repeatable so), the kernel's work is not ordered on the
    caller's stream."""
    if problem.device != "cuda" or state.get("stream_diagnosed"):
        return
    state["stream_diagnosed"] = True
    rewind(f)
    # Observed in the check's shared session, under the case's key: gather_observed adds them to the case's report.
    got = [kp.call("execute", key=f.index, synced=True, ipc=ipc("cuda"), shared_window=True)
           for _ in range(3 if after_determinism else 1)]
    runs = [outputs_of(kp, g["outputs"], "cuda") for g in got]
    if judge(f.case, runs[0], f.tol)[1]:
        return
    if any(not all(compare.bitwise_equal(a, b) for a, b in zip(runs[0], r)) for r in runs[1:]):
        return
    rep["stream_ordered"] = False
    rep["stream_message"] = (f"shape {f.shape}: correct only after a device synchronize; the kernel's work is "
                             "not ordered on the caller's stream (a side stream without a join?)")
    msgs.append(rep["stream_message"])


def _drain(pending):
    """Reads the reply of a request whose result no longer matters, so that the next one reads its own."""
    try:
        pending()
    except Exception:
        pass


def start_case(problem, kp, shape, seed, trial, key, ahead, execute):
    """The judge's copy of the case and the kernel's run of it, begun (the reply is read by the returned
    function): the kernel runs in its process while this one computes the reference. With inputs made from the
    seed on both sides, the kernel's process is sent the case and its run at once, and the judge makes its own
    copy meanwhile."""
    if problem.inputs_from != "both":
        case = judge_case(problem, kp, shape, seed, trial, key, ahead)
        return case, kp.begin("execute", **execute)
    made = kp.begin("case", shape=shape, seed=seed, trial=trial, key=key)
    try:
        pending = kp.begin("execute", **execute)
    except BaseException:
        _drain(made)
        raise
    try:
        case = problem.case(shape, seed, trial)
    except BaseException:
        _drain(made)
        _drain(pending)
        raise
    try:
        made()
    except BaseException:
        _drain(pending)
        raise
    return case, pending


class Flight:
    """One case begun (launch): the kernel's process runs it while the judge decides the case before it. An
    error while beginning it is kept and raised when it lands, so it is charged to its own case."""

    def __init__(self, index, shape, trial, seed, tol):
        self.index, self.shape, self.trial, self.seed, self.tol = index, shape, trial, seed, tol
        self.start = time.perf_counter()
        self.rep = {"shape": shape, "trial": trial, "seed": seed, "status": "FAIL", "outputs": [],
                    "atol": tol["atol"], "rtol": tol["rtol"], "deterministic": None, "message": "", "seconds": None}
        self.case = self.pending = self.bad_ref = self.error = None

    def cancel(self):
        """Reads the reply of a case that will not be decided (it is begun again if it is still wanted)."""
        if self.pending is not None:
            _drain(self.pending)
            self.pending = None


def announce(emit, req, index, shape, trial):
    """Tells the supervisor that case `index` is under way: its case timeout runs from here."""
    emit({"type": "case_start", "index": index, "label": f"shape={shape} trial={trial}",
          "timeout_s": req["case_timeout_s"]})


def launch(problem, kp, plan, index, tol, req, ahead, emit):
    """Begins case `index` of the plan: the kernel's process is sent it and its run; the judge makes its copy,
    the float64 reference and, with judge-made inputs, the next case ahead."""
    shape, trial, seed = plan[index]
    announce(emit, req, index, shape, trial)
    f = Flight(index, shape, trial, seed, tol)
    try:
        twice = req["determinism"] == "bitwise"
        f.case, f.pending = start_case(problem, kp, shape, seed, trial, index, ahead,
                                       dict(key=index, repeat=2 if twice else 1, ipc=ipc(problem.device),
                                            observe=bool(req["delegation"]), shared_window=True))
        case_tol = problem.tolerance(f.case)   # the case's input dtypes, a workload's own tolerance
        if case_tol != tol:
            f.tol = case_tol
            f.rep.update(atol=f.tol["atol"], rtol=f.tol["rtol"],
                         tolerance_source=f"{case_tol['source']}: {case_tol['basis']}")
        problem.__dict__.setdefault("first_tolerance", f.tol)
        try:
            f.bad_ref = invalid_reference(f.case, reference_of(f.case))
            if ahead is not None and not f.bad_ref:
                ahead.make(index + 1, f.case)
        except BaseException:
            f.cancel()
            raise
        if f.bad_ref:
            f.cancel()
    except Exception as e:   # raised when the case lands
        f.error = e
    return f


def land(problem, kp, f, req, state, then=lambda: None, rewind=lambda f: None):
    """Waits for the kernel's run of case `f`, takes its outputs, calls `then` (which may begin the next case)
    and decides the case; returns its report. `rewind(f)` makes the kernel's process hold case `f` again
    before it is run a second time (the stream diagnosis)."""
    device, rep, tol = problem.device, f.rep, f.tol
    try:
        if f.error is not None:
            raise f.error
        if f.bad_ref:
            rep.update(status="INVALID_REFERENCE", message=f.bad_ref, seconds=time.perf_counter() - f.start)
            return rep
        ran, f.pending = f.pending(), None
        if ran.get("observed") is not None:   # what the observer saw of these very runs (delegation decides on it)
            rep["observed"] = [ran["observed"]]
        LEDGER["device_s"] += float(ran.get("seconds") or 0.0)
        runs = [outputs_of(kp, m, device) for m in ran["outputs"]]
        then()
        outs = runs[0]
        reps, msg = judge(f.case, outs, tol)
        if msg and getattr(f.case, "stress", None):
            msg = f"{msg} (kgo's stress inputs: {f.case.stress})"   # the plain trials of the shape may pass
        msgs = [msg] if msg else []
        summarize(rep, reps)
        if msgs:
            diagnose_streams(problem, kp, f, rep, msgs, state, rewind)
        if req["determinism"] == "bitwise" and not msgs:
            outs2 = runs[1]
            equal = len(outs2) == len(outs) and all(compare.bitwise_equal(a, b) for a, b in zip(outs, outs2))
            rep["deterministic"] = equal
            if not equal:
                diffs = [compare.max_diff(a, b) for a, b in zip(outs, outs2)]
                rep["determinism_max_diff"] = max((d for d in diffs if d is not None), default=None)
                msgs.append(f"two runs on the same inputs differ (max diff {rep['determinism_max_diff']}): "
                            "a race or an uninitialized read")
                diagnose_streams(problem, kp, f, rep, msgs, state, rewind, after_determinism=True)
        changed = list(ran.get("changed_inputs") or [])
        rep["inputs_unchanged"] = not changed
        if changed:
            msgs.append(f"the kernel modified its inputs {changed}")
        rep["status"] = "FAIL" if msgs else "PASS"
        rep["message"] = "; ".join(msgs) if msgs else "ok"
    except KernelHack as h:
        rep.update(status="REWARD_HACK", message=str(h), seconds=time.perf_counter() - f.start)
        raise Hacked(rep) from h
    except KernelDied as d:
        rep.update(status="CRASH", message=str(d), seconds=time.perf_counter() - f.start)
        raise Fatal(rep) from d
    except (KernelError, LoadError) as e:
        culprit = getattr(e, "culprit", None)
        if device == "cuda" and is_cuda_fatal(e):
            rep.update(status="CRASH", message=f"CUDA error: {e}"[:2000], seconds=time.perf_counter() - f.start)
            raise Fatal(rep) from e
        rep["message"] = str(e) if isinstance(e, LoadError) or getattr(e, "load_error", False) else \
            f"the kernel raised {e}"[:2000]
        rep["culprit"] = culprit or "kernel"
        if tuple(f.shape) in state.get("edges", ()) and (culprit in ("setup", "reference") or isinstance(e, KernelError)):
            # kgo made this shape up: a problem that rejects it is not a failing kernel, nor is a kernel that refuses
            # it (it raised: no output to be wrong; fmh66's tl.dot kernels need 16 along each dim). A wrong output, a
            # crash or a timeout there still fails.
            rep["status"] = "SKIPPED"
            rep["message"] = f"edge shape rejected by the {'problem' if culprit in ('setup', 'reference') else 'kernel'} " \
                             f"({culprit or 'kernel'}): {e}"[:2000]
    if rep["status"] == "FAIL" and "culprit" not in rep:
        rep["culprit"] = "kernel"
    rep["seconds"] = time.perf_counter() - f.start
    return rep


def remake(problem, kp, f):
    """Makes the kernel's process hold case `f` again, under its key (after a later case replaced it)."""
    if problem.inputs_from == "judge":
        provide(problem, kp, f.case, f.shape, f.seed, f.trial)
    kp.call("case", shape=f.shape, seed=f.seed, trial=f.trial, key=f.index)


BENIGN_ATEN = {"empty", "empty_like", "empty_strided", "zeros", "zeros_like", "fill_", "zero_", "view",
               "reshape", "_reshape_alias", "flatten", "contiguous", "clone", "copy_", "as_strided", "t",
               "transpose", "permute", "expand", "detach", "alias", "unsqueeze", "squeeze", "select", "slice",
               "to", "_to_copy", "lift_fresh", "resolve_conj", "resolve_neg", "numel", "stride", "size",
               "is_contiguous", "item", "_local_scalar_dense", "result_type", "unbind", "split", "chunk",
               "narrow", "new_empty", "new_empty_strided", "record_stream", "view_as", "full", "ones",
               "empty_permuted", "set_", "resize_", "is_nonzero", "numpy_T", "lift", "_unsafe_view"}


def delegation(problem, cases, allowed):
    """The delegation verdict from what the observer saw in the checked calls themselves (each case's `observed`,
    launches.Observer: the same window for every call, so no call of a verdict runs unobserved), at every shape. A
    case that ran the kernel without an observation of every call fails it: a call nobody saw."""
    by_shape, missing = {}, []
    for c in cases:
        got = c.get("observed")
        if got is None:
            if c.get("status") == "PASS":
                missing.append(c)
            continue
        by_shape.setdefault(tuple(c["shape"]), []).extend(got)
    if missing:
        first = missing[0]
        return {"checked": True, "delegated": True, "own_launches": None, "reference_ops_called": [],
                "torch_ops": [], "shapes_checked": len(by_shape),
                "message": f"shape {first['shape']} trial {first['trial']}: the kernel's calls were not observed; a "
                           "verdict rests only on observed calls"}
    result = {"checked": False, "delegated": None, "own_launches": None, "reference_ops_called": [],
              "message": "not run (no case ran the kernel)"}
    calls = 0
    for shape, observed in by_shape.items():
        result = delegation_at(problem, list(shape), observed, allowed)
        calls += result.get("calls_observed", 0)
        if result["delegated"]:
            break
    if result["checked"] and not result["delegated"]:
        result["calls_observed"] = calls
        result["message"] = (f"own kernels ran in all {calls} observed calls at {len(by_shape)} shapes: "
                             f"{result['message'].split(': ', 1)[-1]}")
    result["shapes_checked"] = len(by_shape)
    return result


def delegation_at(problem, shape, observed, allowed, tallies=()):
    """Delegation at one shape from observer reports (launches.Observer.report) of calls at that shape: the torch op
    the kernel replaces, aten compute ops outside `allowed` (a decomposition), a call that ran none of the file's
    own kernels, a vendor library's symbol the kernel's process reached (launches.libraries, unless `allowed` names
    the library) or timed calls that launched what no observed call did (decoy_at; `tallies`: its more tallied
    windows) is delegation; an observation that lost calls is a FAIL too. Shared by check and bench."""
    lost = [o for o in observed if not isinstance(o, dict)
            or (o.get("profiled", True) and (o.get("marks") or 0) < o.get("calls", 0) + o.get("replays", 0))]
    if lost or not observed:
        return {"checked": True, "delegated": True, "own_launches": None, "reference_ops_called": [],
                "torch_ops": [],
                "message": f"shape {shape}: the observer lost calls of the kernel (it saw "
                           f"{[o.get('marks') for o in lost if isinstance(o, dict)]} of them); a verdict rests only "
                           "on observed calls"}
    own, aten, own_calls, libs = {}, set(), [], {}
    for o in observed:
        for k, v in (o.get("own") or {}).items():
            own[str(k)] = own.get(str(k), 0) + int(v)
        for k, v in (o.get("libraries") or {}).items():
            libs[str(k)] = max(libs.get(str(k), 0), int(v))   # each report: the process's lookups so far
        aten |= set(map(str, o.get("aten") or []))
        own_calls += [int(n) for n in o.get("own_calls") or []]
    library = sorted(k for k in libs if launches.library_name(k) not in allowed)
    ref_ops = sorted(aten & set(problem.op.aten)) if problem.op else []
    torch_ops = sorted(a for a in aten if a[len("aten::"):] not in BENIGN_ATEN and a not in ref_ops)
    unallowed = [a for a in torch_ops if a[len("aten::"):] not in allowed and a not in allowed]
    # A CUDA solve()'s kernels come from its own shared object, which the profiler may not name (seen on an H200);
    # torch called back from its host code still shows as aten ops.
    bare = sum(n == 0 for n in own_calls)
    nothing_own = bare > 0 and problem.contract != "cuda"
    decoy = decoy_at(shape, observed, tallies)
    delegated = bool(ref_ops) or nothing_own or bool(unallowed) or bool(decoy) or bool(library)
    if ref_ops:
        msg = (f"shape {shape}: the kernel calls {', '.join(ref_ops)}, the torch op it replaces; write the "
               "computation as a kernel")
    elif nothing_own:
        msg = (f"shape {shape}: {bare} of {len(own_calls)} calls ran none of the kernel file's own GPU "
               "kernels; the work was done by torch")
    elif library:
        msg = (f"shape {shape}: the kernel's process reached {', '.join(library[:4])} (looked up through ctypes, "
               "or called by a shared object it loaded): that library's GPU code does the work, unseen by the "
               f"observer; write it in the kernel or allow the library by name (--allow-op "
               f"{launches.library_name(library[0])})")
    elif decoy:
        msg = decoy
    elif unallowed:
        msg = (f"shape {shape}: torch ops do part of the work: {', '.join(unallowed)}; write it in the kernel "
               "or allow them by name (kgo check/bench/baseline --allow-op NAME, repeatable)")
    else:
        msg = (f"own kernels ran in all {len(own_calls)} observed calls: "
               f"{', '.join(sorted(own)) or 'its compiled extension'}")
    return {"checked": True, "delegated": delegated, "own_launches": sum(own.values()),
            "reference_ops_called": ref_ops, "torch_ops": torch_ops, "libraries": libs, "message": msg,
            "calls_observed": len(own_calls)}


def decoy_at(shape, observed, tallies=()):
    """What timed calls launched that the observed calls of the same shape did not (None: nothing): a launch
    shape (launches.shapes: a kernel with its grid or argument shapes) no profiled call launched, or fewer own
    launches per call than the fewest of a profiled call. A kernel that does its work in its own kernels launches
    the same ones whether or not the profiler is on; one that lets torch work in the untimed-by-profiler calls and
    launches a decoy kernel of its own there does not. `tallies`: more tallied windows ({launched, fewest})."""
    seen = [o for o in observed if isinstance(o, dict) and o.get("profiled") and o.get("own_calls")]
    tallied = [{"launched": o.get("launched"), "fewest": min(o.get("own_calls") or [], default=None)}
               for o in observed if isinstance(o, dict) and o.get("profiled") is False] + list(tallies)
    if not seen or not tallied:
        return None
    known = set().union(*(set(o.get("launched") or {}) for o in seen))
    fewest = min(min(o["own_calls"]) for o in seen)
    for t in tallied:
        new = sorted(set(t.get("launched") or {}) - known)
        if new:
            return (f"shape {shape}: the timed calls launched {', '.join(new[:3])}, which no observed call of this "
                    f"shape launched (observed: {', '.join(sorted(known)[:3]) or 'none'}); a kernel launched beside "
                    "work done elsewhere is not the work")
        if t.get("fewest") is not None and t["fewest"] < fewest:
            return (f"shape {shape}: a timed call launched {t['fewest']} of the kernel file's own kernels, every "
                    f"observed call of this shape at least {fewest}; the rest of its work was done elsewhere")
    return None


def run_cases(problem, kp, plan, tol, req, state, ahead, emit, cases):
    """Every case of the plan, in a pipeline: once a case's outputs are here, the next case is begun, so the
    kernel's process runs it while the judge decides this one (cases up to the Ahead limit; a larger one
    waits, so that at most one large case is alive in the judge). Stops after an INVALID_REFERENCE."""
    flight = launch(problem, kp, plan, 0, tol, req, ahead, emit) if plan else None
    while flight is not None:
        nxt = []
        following = flight.index + 1 < len(plan)

        def then():
            if following and case_bytes(flight.case) <= ahead.limit:
                nxt.append(launch(problem, kp, plan, flight.index + 1, tol, req, ahead, emit))

        def drop_next():
            for n in nxt:
                n.cancel()
            nxt.clear()

        def rewind(f):
            if not nxt:
                return    # nothing was begun after f: the kernel's process still holds it
            drop_next()   # begun again below: the kernel's process holds one case at a time
            announce(emit, req, f.index, f.shape, f.trial)
            remake(problem, kp, f)

        try:
            rep = land(problem, kp, flight, req, state, then, rewind)
        except BaseException:
            drop_next()
            raise
        # The decided case's inputs and reference go before the next large one is made: two large cases alive
        # here at once was the judge's peak at KernelBench's largest sizes.
        flight.case = None
        release_cached(problem.device)
        cases.append(rep)
        emit({"type": "case_done", "index": flight.index, "case": rep})
        if rep["status"] == "INVALID_REFERENCE":
            drop_next()
            return
        flight = nxt[0] if nxt else launch(problem, kp, plan, flight.index + 1, tol, req, ahead, emit) \
            if following else None


def gather_observed(kp, keyed):
    """What the kernel's process observed of each case's runs in the check's shared observer session
    (launches.Session: one profiler start for all cases), added to each case's `observed`; `keyed`: [(case key,
    report)]. A case whose runs come back unobserved keeps none, and delegation() fails it. A tampered harness in the
    kernel's process is REWARD_HACK, as in any case."""
    try:
        got = kp.call("observed_cases").get("cases")
    except KernelHack as h:
        raise Hacked({"shape": None, "message": str(h)}) from h
    except KernelError:   # the session could not be read: every case stays unobserved
        return
    got = got if isinstance(got, dict) else {}
    for key, rep in keyed:
        seen = got.get(str(key))
        seen = [o for o in seen if isinstance(o, dict)] if isinstance(seen, list) else []
        if seen:
            rep.setdefault("observed", []).extend(seen)


def run_check(req, problem, kp, emit):
    """All cases, then delegation at every shape from what the observer saw of their calls. With `_only_case`
    (isolate=case) one case, or, at index len(plan), the delegation check and the verdict over `_prior_cases`."""
    tol = problem.tolerance()
    shapes, edges = plan_shapes(req, problem)
    plan = [(s, t, case_seed(req["seed"], i, t)) for i, s in enumerate(shapes) for t in range(req["trials"])]
    only = req.get("_only_case")
    emit({"type": "plan", "cases": [{"shape": s, "trial": t, "seed": sd} for s, t, sd in plan]})
    state = {"edges": edges}
    ahead = Ahead(problem, plan, ahead_limit(problem.device)) if only is None else None
    LEDGER.update(device_s=0.0, compile_s=0.0)
    cases = list(req.get("_prior_cases", []))
    deleg = {"checked": False, "delegated": None, "own_launches": None, "reference_ops_called": [],
             "message": "disabled by the request"}
    try:
        if only is not None and only < len(plan):
            rep = land(problem, kp, launch(problem, kp, plan, only, tol, req, None, emit), req, state)
            if req["delegation"]:
                gather_observed(kp, [(only, rep)])
            release_cached(problem.device)
            emit({"type": "case_done", "index": only, "case": rep})
            return {"verdict": rep["status"], "message": rep["message"], "cases": [rep]}
        if only is None:
            first = len(cases)
            run_cases(problem, kp, plan, tol, req, state, ahead, emit, cases)
            if req["delegation"]:
                gather_observed(kp, list(enumerate(cases[first:])))   # run_cases appends case i of the plan i-th
        if req["delegation"] and not any(c["status"] == "INVALID_REFERENCE" for c in cases):
            try:
                deleg = delegation(problem, cases, set(req.get("allow_ops") or []))
            except LoadError as e:   # the problem's side (its reference at an edge shape): not the kernel's doing
                deleg = {"checked": True, "delegated": True, "own_launches": None, "reference_ops_called": [],
                         "message": f"the delegation check could not run: {str(e)[:300]}"}
    except Hacked as h:
        cases.append(h.args[0]) if h.args[0].get("shape") is not None else None
        out = finish(cases, tol, deleg, problem, edges)
        out.update(verdict="REWARD_HACK", message=h.args[0]["message"])
        return out
    return finish(cases, tol, deleg, problem, edges)


def _reported(tol):
    """The run's tolerance as the result shows it: that of its first case (the cases of a run share their
    dtype; a case whose tolerance differs names its own in `tolerance_source`)."""
    return {k: tol[k] for k in ("atol", "rtol", "max_rel_err", "source", "basis", "atol_scale") if k in tol}


def finish(cases, tol, deleg, problem, edges=()):
    details, summary = checks.run_all(checks.Evidence(cases, deleg, problem.device))
    broken = [c for c in summary if c["passed"] is False]
    statuses = [c["status"] for c in cases] + ["FAIL" for _ in broken]
    verdict = merge_verdicts(statuses)
    rels = [c["rel_err"] for c in cases if c.get("rel_err") is not None]
    failed = [c for c in cases if c["status"] not in ("PASS", "SKIPPED")]
    if failed:
        first = failed[0]
        message = f"{len(failed)}/{len(cases)} cases failed; first: shape {first['shape']} trial " \
                  f"{first['trial']}: {first['message']}"
        if all(tuple(c["shape"]) in edges for c in failed) and \
                any(c["status"] == "PASS" and tuple(c["shape"]) not in edges for c in cases):
            message = (f"only kgo's edge shapes failed (every shape asked for passed): the kernel is wrong at sizes "
                       f"the problem allows; fix it, or, if the problem never has them, pass --no-edge-shapes. "
                       f"{message}")
    elif broken:
        message = f"{broken[0]['name']}: {broken[0]['message']}"
    else:
        skipped = sum(c["status"] == "SKIPPED" for c in cases)
        message = f"{len(cases) - skipped} cases passed; max rel_err {max(rels) if rels else 0:.3g}" + (
            f"; {skipped} edge shapes skipped (rejected by the problem or the kernel)" if skipped else "")
    out = {"verdict": verdict, "message": message, "cases": cases,
            "tolerance": _reported(getattr(problem, "first_tolerance", tol)),
            **details, "checks": summary,
            "inputs_unchanged": details["inputs_intact"]["passed"] is not False,
            "max_rel_err": max(rels) if rels else None, "reference_dtype": problem.reference_dtype,
            "culprit": failed[0].get("culprit", "kernel") if failed else (broken[0]["name"] if broken else None)}
    if not any(c["status"] == "PASS" for c in cases) and verdict == "PASS":
        out.update(verdict="FAIL", culprit="contract",
                   message="no case ran: every shape was rejected by the problem; pass shapes it accepts")
    warnings = [f"shape {c['shape']}: {c['message']}" for c in cases
                if c["status"] == "SKIPPED" and c.get("culprit")]
    warnings += [n for n in problem.kernel_info.get("cpu_notes") or [] if n not in warnings]  # the kernel's process
    warnings += [n for n in getattr(problem, "notes", []) if n not in warnings]   # how the judge made the inputs
    if warnings:
        out["warnings"] = warnings
    return cpu_honesty.judge_trust(out, problem)
