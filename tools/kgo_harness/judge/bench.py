"""`bench`: CUDA-event timing (L2 flush outside the timed region, warm-up, rotating input sets, median and
IQR), CUDA-graph mode for launch-bound sizes, a synchronized cross-check that counts side-stream work,
checked outputs, and PyTorch eager / torch.compile baselines timed the same way."""
import math
import secrets
import statistics
import time

import torch

from kgo_harness.judge import check, compare, plausibility, wallclock
from kgo_harness import memo, timing
from kgo_harness.judge import envinfo
from kgo_harness.protocol import case_seed, is_cuda_fatal
from kgo_harness.timing import Timer, make_calls, stats, time_variant


def check_outputs(cases, outs, tol):
    worst, ok = 0.0, True
    for case, got in zip(cases, outs):
        if not got:  # an input set the timed loop never reached
            continue
        got = list(got) if isinstance(got, (list, tuple)) else [got]
        refs = case.reference64()
        if len(got) != len(refs):
            return False, None
        for o, r in zip(got, refs):
            rep = compare.compare("out", o, r, tol["atol"], tol["rtol"], tol["max_rel_err"],
                                  atol_scale=tol.get("atol_scale"))
            ok = ok and rep["passed"]
            worst = max(worst, rep["rel_err"] if rep["rel_err"] is not None else math.inf)
    return ok, (worst if math.isfinite(worst) else None)


def refresh_like(cases, said, fresh, samples, originals=None):
    """Gives the judge's cases the inputs each set had at its last timed call (timing.refreshed: generation g of set
    r); a message when the kernel's process did not refresh as asked (a set refreshed before each sample).
    `originals`: each set's first values (Spot keeps them), else taken now."""
    ok = isinstance(said, list) and len(said) == len(cases) and all(isinstance(g, int) and g >= 0 for g in said) \
        and sum(said) >= samples
    if not ok:
        return ("the kernel's process did not give its timed calls fresh inputs as the judge asked (generations "
                f"{said!r} for {samples} samples): its timing is not trusted")
    for r, (case, g) in enumerate(zip(cases, said)):
        if g == 0:
            continue   # a set no timed sample reached keeps its first values (its outputs are the warm-up's)
        live = timing.floating_inputs(case)
        timing.refreshed(live, originals[r] if originals else [t.clone() for t in live], fresh, g)
    return None


def grouped(kp, message, device, labels):
    """The outputs of a kernel-process message named `<label>.out<i>`, one list per label in `labels` (a name the
    kernel's process made up matches none and is dropped: that call has no outputs)."""
    by = {label: [] for label in labels}
    for name, t in zip([it.get("name", "") for it in message["items"]], check.outputs_of(kp, message, device)):
        label, dot, _ = str(name).partition(".")
        if dot and label in by:
            by[label].append(t)
    return [by[label] for label in labels]


def per_set(kp, message, device, sets):
    """The outputs of a kernel-process message named `set<r>.out<i>`, grouped by input set r."""
    return grouped(kp, message, device, [f"set{r}" for r in range(sets)])


def run_bench(req, problem, kp, emit, ledger, still=None):
    """`still`: the pool's (remote.Pool.still), which holds the kernel's cell still while the judge times its own
    work (wallclock.alone)."""
    o = req["bench"]
    device = problem.device
    tol = problem.tolerance()
    l2 = timing.l2_bytes(device)
    flush = timing.flush_buffer(l2) if device == "cuda" and o["flush_l2"] and l2 else None
    if flush is not None:
        ledger["flush_us"] = flush[1]
    timer = Timer(device, flush[0] if flush else None, o, ledger)  # the judge's, for the baselines
    last = timing.recent_busy() if device == "cuda" else None
    if last:
        timer.busy(last["ms"], last["age_s"])   # the previous request's device work (a check just before)
    work = {tuple(w["shape"]): w for w in req.get("work", [])}
    clocks_before = envinfo.clocks() if device == "cuda" else None
    sizes = []
    warnings = []
    shapes = req["shapes"]
    if problem.adapter is not None and not req.get("shapes_given", True):
        shapes = problem.default_shapes()  # the format's own sizes, not kgo's square defaults
    for index, shape in enumerate(shapes):
        emit({"type": "case_start", "index": index, "label": f"bench shape={shape}",
              "timeout_s": req["case_timeout_s"]})
        size = bench_size(req, problem, kp, timer, shape, index, tol, work, warnings, still)
        sizes.append(size)
        emit({"type": "case_done", "index": index, "case": {"shape": shape, "status": "PASS",
                                                           "message": size["message"]}})
        if size.get("reward_hack") or size.get("untrusted"):
            break
    clocks_after = envinfo.clocks() if device == "cuda" else None
    warnings += [n for n in problem.notes if n not in warnings]   # how the judge made the inputs
    return finish(sizes, clocks_before, clocks_after, warnings)


def judge_sets(problem, kp, shape, seed, sets, index, start=0):
    """The judge's copies of the timed input sets start..sets-1 (seeds seed + r)."""
    if problem.inputs_from == "both":
        return [problem.case(shape, seed + r, 0) for r in range(start, sets)]
    return [check.judge_case(problem, kp, shape, seed + r, 0, f"bench{index}.{r}") for r in range(start, sets)]


def bench_size(req, problem, kp, timer, shape, index, tol, work, warnings, still=None):
    o = req["bench"]
    device = problem.device
    seed = case_seed(req["seed"], index, 0)
    made = provided_sets(req, problem, kp, shape, seed) if problem.inputs_from == "judge" else None
    # The judge decides how many input sets the timed calls rotate through: fewer would let the kernel's calls find
    # their inputs in the L2 cache, and spread the request's cost of each timed batch over fewer calls.
    first = None if made else judge_sets(problem, kp, shape, seed, 1, index)[0]
    sets = len(made) if made else timing.set_count(o["rotate"], first, device)
    busy = {"ms": timer.busy_ms, "age_s": time.perf_counter() - timer.busy_at} if timer.busy_at else None
    asked = time.perf_counter()
    # Fresh input values before every timed sample, from a number the kernel's process learns only now; the
    # judge rebuilds the last values of each set and checks the timed calls' outputs against them.
    fresh = secrets.randbelow(1 << 30) if problem.inputs_from == "both" and o["check_outputs"] else None
    got = kp.call("time", bench=o, shape=list(shape), seed=seed, ipc=check.ipc(device),
                  sets=sets, busy=busy, fresh=fresh)
    for key in ("device_s", "compile_s", "warmup_s", "warmup_credit_s"):
        timer.ledger[key] = timer.ledger.get(key, 0.0) + float((got.get("ledger") or {}).get(key) or 0.0)
    # The kernel's process reports its device time; the credit it earns is bounded by this process's own clock.
    said = float((got.get("ledger") or {}).get("device_s") or 0.0) * 1e3
    timer.busy(min(said, (time.perf_counter() - asked) * 1e3))
    samples = [float(x) for x in got["samples"]]
    mode = str(got["mode"])
    size = {"shape": list(shape), "mode": mode, "runs": len(samples), **stats(samples),
            "samples_us": [round(x, 4) for x in samples], "rotate": sets, "flush_l2": bool(got["flush_l2"]),
            "synced_us": None, "stream_escape": None, "message": got.get("note") or "ok", "audit": []}
    if got.get("rotate") != sets:
        size["reward_hack"] = size["message"] = (
            f"the kernel's process timed its calls over {got.get('rotate')!r} input sets where the judge asked for "
            f"{sets}: fewer sets let the calls find their inputs in the cache")
        return size
    outs = per_set(kp, got["outputs"], device, sets)
    cases = made or [first] + judge_sets(problem, kp, shape, seed, sets, index, start=1)
    spot = Spot(cases, outs, fresh is not None, tol if o["check_outputs"] else None, device, mode, timer)
    if fresh is not None:
        stale = refresh_like(cases, got.get("fresh"), fresh, len(samples), spot.originals)
        if stale:
            size["reward_hack"] = stale
            size["message"] = stale
            return size
    if o["check_outputs"]:
        ok, worst = check_outputs(cases, outs, tol)
        size["outputs_checked"] = ok
        size["output_rel_err"] = worst
        if not ok:
            size["message"] = "outputs of the timed calls do not match the reference"
        elif got.get("ordered_outputs"):
            ok, _ = check_outputs(cases, per_set(kp, got["ordered_outputs"], device, sets), tol)
            size["outputs_checked"] = ok
            if not ok:
                size["message"] = ("outputs are wrong when the inputs arrive late on the caller's stream: the "
                                   "kernel's work is not ordered on it (a side stream without a join?)")
    else:
        size["outputs_checked"] = None
        size["output_rel_err"] = None
    if device == "cuda":
        # Also in graph mode: work launched on a side stream escapes the capture and replays as nothing.
        synced, pending = float(got["synced_us"]), float(got["pending_us"])
        size["synced_us"], size["pending_us"] = synced, pending
        size["stream_escape"] = timing.stream_escape(synced, pending, size["median_us"])
        if size["stream_escape"]:
            size["message"] = (f"work escapes the caller's stream: {synced:.1f} us with a device synchronize vs "
                               f"{size['median_us']:.1f} us stream-ordered; reporting the synchronized time")
            size["median_us"] = synced
    observed = [got["observed"]] if got.get("observed") is not None else []   # the observed runs
    if size["outputs_checked"] is not False:   # wrong timed outputs already FAIL; their time is not recorded
        control = wallclock.Control(timer, spot) if device == "cuda" else None
        wallclock.wall_check(kp, size, device, spot, observed, control, still)
    # Decided also beside a faked time when the batches ran (a kernel that delegates only in its samples is
    # often caught by the clock too, where its own kernel is much slower than torch's).
    if req["delegation"] and size["outputs_checked"] is not False and (observed or not size.get("reward_hack")):
        size["delegation"] = delegation(req, problem, shape, observed, got.get("own_calls"))
    if size.get("reward_hack") or size.get("untrusted"):
        return size
    if (size.get("delegation") or {}).get("delegated"):
        size["message"] = f"delegation: {size['delegation']['message']}"
        return size
    if req["bench"]["baselines"]:
        with wallclock.alone(still, device) as busy:
            if busy:
                size["untrusted"] = size["message"] = busy
                return size
            for kind in req["bench"]["baselines"]:
                size.update(baseline(kind, problem, cases, timer, sets, mode, o["runs"], warnings))
    best = [v for v in (size.get("eager_us"), size.get("compile_us")) if v]
    med = size["median_us"]
    size["speedup_vs_eager"] = size["eager_us"] / med if size.get("eager_us") and med else None
    size["speedup_vs_compile"] = size["compile_us"] / med if size.get("compile_us") and med else None
    size["speedup_vs_best"] = min(best) / med if best and med else None
    w = work.get(tuple(shape))
    if w and (w.get("bytes") is not None or w.get("flops") is not None):
        size["bytes"], size["flops"], size["work_source"] = w.get("bytes"), w.get("flops"), "request"
    else:
        size["bytes"], size["flops"] = problem.work(shape, cases[0])
        size["work_source"] = "harness"
    size["achieved_tbps"] = size["bytes"] / (med * 1e6) if size["bytes"] and med else None
    size["achieved_tflops"] = size["flops"] / (med * 1e6) if size["flops"] and med else None
    plausibility.floor_check(size, req.get("ceilings"))
    for k in ("eager_us", "compile_us"):
        size.setdefault(k, None)
    return size


def delegation(req, problem, shape, observed, samples):
    """The size's delegation verdict (check.delegation_at) from the tally of the judge's timed batches (own launches
    per call) and the observed runs, whose launches the tallied calls must match (check.decoy_at; PROTOCOL.md
    "Delegation"). The kernel's own timed samples are its word on its time, held against those batches by the
    judge's clock (wallclock.py); their own launches are counted (`samples`), and a sample call that ran none of the
    file's own kernels is delegation too."""
    bare = int((samples or {}).get("without_own") or 0) if isinstance(samples, dict) else None
    got = check.delegation_at(problem, list(shape), observed, set(req.get("allow_ops") or []),
                              [samples] if bare is not None else [])
    if bare is None:
        got.update(delegated=True, message=f"shape {shape}: the timed samples' launches were not reported")
    elif bare and problem.contract != "cuda" and not got["delegated"]:
        got.update(delegated=True, message=f"shape {shape}: {bare} of {samples.get('calls')} timed sample calls "
                                           "ran none of the kernel file's own kernels; the work was done by torch")
    got["sample_calls_without_own"] = bare
    return got


class Spot:
    """The judge's side of its timed batches (wallclock.py): its copies of the timed input sets with their first
    values kept, the fresh values a batch's rounds give them (when the timed calls get fresh values at all), the
    batch's harness work without its calls (`emulate`, the overhead taken off the batches' time), and the check of
    one call's outputs against the reference (`tol` None: the request turned output checks off)."""

    def __init__(self, cases, outputs, refreshable, tol, device, mode="events", timer=None):
        self.cases, self.outputs, self.tol, self.device, self.mode = cases, outputs, tol, device, mode
        self.timer = timer   # the judge's: its spins
        self.sets = len(cases)
        self.rolls = timing.Rolls([timing.floating_inputs(c) for c in cases]) if refreshable else None
        self.originals = self.rolls.originals if refreshable else None
        self.output_bytes = sum(t.numel() * t.element_size() for t in (outputs[0] if outputs else [])
                                if isinstance(t, torch.Tensor))
        self.twin, self.twin_spin_us = None, None   # emulate's timing.Rounds and the spin it was made with

    def fresh_key(self):
        return secrets.randbelow(1 << 30) if self.rolls is not None else None

    def refresh_all(self, key, generation=1):
        if self.rolls is not None:
            self.rolls.all(key, generation)

    def emulate(self, rounds, spin_us=0.0):
        """A timed batch as the kernel's process runs it (KernelSide.batch), in this process on its own copies, with
        a spin of `spin_us` (on a GPU) in place of each call: each round's fresh values, spins and held copies,
        then the digests of every call's outputs. With the claimed time as the spin it is the honest batch's twin:
        the same launches, graph nodes and device work, so what the kernel's batches take beyond it is what its
        calls take beyond the claim."""
        spin = self.timer.hold if spin_us > 0 and self.timer is not None else None

        def call(r):
            if spin is not None:
                spin(spin_us)
            return self.outputs[r]
        if self.twin is None or (self.twin.rounds, self.twin_spin_us) != (rounds, spin_us):
            if spin is not None and self.mode == "graph":
                self.timer._calibrate()   # the spins' cycles are fixed at capture
            self.twin = timing.Rounds(call, self.sets, rounds, self.rolls, self.cases[0], self.mode == "graph")
            self.twin_spin_us = spin_us
        self.twin.digests(self.twin.run(self.fresh_key()))

    def spin_node_us(self, spin_us, nodes=20):
        """What one spin of `spin_us` takes in a graph of `nodes` of them by CUDA events, as the kernel's graph-mode
        samples time its calls (a spin's own launch in the graph included); the least of three replays."""
        if self.timer.cycles_per_us is None:
            self.timer._calibrate()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(nodes):
                self.timer.hold(spin_us)
        times = []
        for _ in range(3):
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record()
            graph.replay()
            e1.record()
            e1.synchronize()
            times.append(e0.elapsed_time(e1) * 1e3 / nodes)
        return min(times)

    def keep(self, kp, picked):
        """Has the kernel's process keep a copy of the outputs of the calls `picked` of its last batch, in place of
        what it kept before; returns the copies' slots."""
        return kp.call("batch_outputs", indices=list(picked))["kept"]

    def fetch(self, kp, slots):
        """The kept outputs of `slots`, one list per slot, in one message; the kernel's process lets every copy go."""
        got = kp.call("kept_outputs", slots=list(slots), ipc=check.ipc(self.device))
        return grouped(kp, got["outputs"], self.device, [f"slot{s}" for s in slots])

    def check(self, j, outs, fresh):
        """Call j of a batch (round j // sets, set j % sets) against the reference of its fresh values."""
        if not outs:
            return False
        if self.tol is None:
            return True
        case = self.cases[j % self.sets]
        if fresh is not None:
            self.rolls.one(j % self.sets, fresh, j // self.sets + 1)
            case._ref = None   # the reference of the values the batch's call had
        return check_outputs([case], [outs], self.tol)[0]


def provided_sets(req, problem, kp, shape, seed):
    """The timed input sets made here by the reference's code (inputs_from "judge") and shipped to the kernel's
    process: as many as the timed calls rotate through (timing.set_count)."""
    first = problem.case(shape, seed, 0)
    check.reference_of(first)
    cases = [first] + [problem.case(shape, seed + r, 0)
                       for r in range(1, timing.set_count(req["bench"]["rotate"], first, problem.device))]
    for r, c in enumerate(cases):
        check.provide(problem, kp, c, shape, seed + r, 0)
    return cases


_compiled = memo.Memo(32)   # torch.compile wrappers (each keeps its function alive, so ids stay unique)


def baseline(kind, problem, cases, timer, sets, mode, runs, warnings):
    key = kind + "_"
    out = {key + "us": None, key + "iqr_us": None}
    try:
        if kind == "eager":
            call = make_calls(cases, "eager")
        else:
            out["compile_s"] = None
            out["compile_error"] = None
            fn, args, kwargs = cases[0].eager_callable()
            ck = (id(fn), problem.sha, tuple(cases[0].shape), str(problem.dtype))
            start = time.perf_counter()
            compiled = _compiled.get(ck, lambda: torch.compile(fn, dynamic=False))
            call = make_calls(cases, "compile", compiled)
            call(0)
            timer._sync()
            out["compile_s"] = time.perf_counter() - start
            timer.ledger["compile_s"] += out["compile_s"]
        samples, used, _, note = time_variant(timer, call, sets, mode, runs)
        st = stats(samples)
        out[key + "us"] = st["median_us"]
        out[key + "iqr_us"] = st["iqr_us"]
        if note:
            warnings.append(f"{kind}: {note}")
    except Exception as e:
        if problem.device == "cuda" and is_cuda_fatal(e):
            raise
        msg = f"{kind} baseline failed: {type(e).__name__}: {str(e)[:300]}"
        warnings.append(msg)
        if kind == "compile":
            out["compile_error"] = msg
    return out


def geomean(values):
    vals = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else None


def finish(sizes, before, after, warnings):
    hacks = [s for s in sizes if s.get("reward_hack")]
    bad = [s for s in sizes if s.get("outputs_checked") is False or s.get("stream_escape")
           or (s.get("delegation") or {}).get("delegated")]
    shared = [s for s in sizes if s.get("untrusted")]
    verdict = "REWARD_HACK" if hacks else "FAIL" if bad else "UNTRUSTED" if shared else "PASS"
    if hacks:
        message = f"shape {hacks[0]['shape']}: {hacks[0]['reward_hack']}"
    elif bad:
        message = f"shape {bad[0]['shape']}: {bad[0]['message']}"
    elif shared:
        message = f"shape {shared[0]['shape']}: {shared[0]['untrusted']}"
    else:
        message = "; ".join(f"{'x'.join(map(str, s['shape']))}: {s['median_us']:.2f} us ({s['mode']})"
                            for s in sizes)
    return {"verdict": verdict, "message": message, "sizes": sizes,
            "final_mean_us": statistics.fmean(s["mean_us"] for s in sizes) if sizes else None,
            "final_median_us": statistics.fmean(s["median_us"] for s in sizes) if sizes else None,
            "geomean_speedup_vs_eager": geomean(s.get("speedup_vs_eager") for s in sizes),
            "geomean_speedup_vs_compile": geomean(s.get("speedup_vs_compile") for s in sizes),
            "geomean_speedup_vs_best": geomean(s.get("speedup_vs_best") for s in sizes),
            "clocks": {"source": (before or {}).get("source"), "before": _clock(before), "after": _clock(after)},
            "warnings": warnings}


def _clock(c):
    if not c:
        return None
    return {k: v for k, v in c.items() if k != "source"}
