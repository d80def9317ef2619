"""The kernel's half of `bench`, run in the kernel's process: input sets rotated through, the first
(compiling) call, an estimate that picks events or graph mode, the timed samples and the synchronized
cross-check. The outputs of the first input set go back to the judge as bytes, which checks them."""
import statistics
import time

from kgo_harness import launches, timing, wire


def time_shape(side, msg):
    torch = side.torch
    problem = side.problem
    o, shape, seed = msg["bench"], list(msg["shape"]), msg["seed"]
    device = problem.device
    timer = _timer(side, o, timing.l2_bytes(device))
    busy = msg.get("busy")   # the judge's word on the device work just before (timing.Timer.busy)
    if isinstance(busy, dict):
        timer.busy(float(busy.get("ms") or 0.0), float(busy.get("age_s") or 0.0))
    first = problem.case(shape, seed, 0)
    sets = int(msg["sets"])   # the judge's number (timing.set_count): never this process's choice
    cases = [first] + [problem.case(shape, seed + r, 0) for r in range(1, sets)]
    fresh = _Fresh(cases, msg.get("fresh"))
    side.timed_call, side.timed_cases, side.timed_fresh, side.timed_rounds = \
        timing.make_calls(cases, "kernel"), cases, fresh, None
    call, own = _tallied(side.timed_call)
    timer.ledger.update(device_s=0.0, compile_s=0.0, warmup_s=0.0)
    timer.first_call(call, sets)
    warm, warm_shapes = len(own), launches.shapes()   # a compile's and an autotuner's launches are behind
    est, _ = timer.events(call, sets, 3, precise=False)   # picks the mode only
    mode = "events"
    if device == "cuda" and (o["graph"] == "on" or (o["graph"] == "auto" and
                                                    statistics.median(est) < o["graph_threshold_us"])):
        mode = "graph"
    timer.refresh = fresh   # fresh input values before every timed sample (the judge checks the last ones)
    samples, mode, outs, note = timing.time_variant(timer, call, sets, mode, o["runs"])
    timer.refresh = None
    if timer.waits:
        note = (f"{note}; " if note else "") + ("the call waits for the device (a synchronize inside it): its "
                                                "samples include its own launch")
    said = fresh.report()
    side.timed_mode = mode   # the judge's timed batches run the calls the same way (KernelSide.batch)
    side.verify("during the timed runs")
    synced = pending = None
    if device == "cuda":
        synced, pending = _probes(timer, call, statistics.median(samples))
    timing.digests(outs)   # the digest's kernels loaded now (CUDA loads them lazily), not in the first timed batch
    named = []
    for r, got in enumerate(outs):   # every input set's last outputs: a replayed result shows up
        got = list(got) if isinstance(got, (list, tuple)) else ([got] if got is not None else [])
        named += [(f"set{r}.out{i}", t) for i, t in enumerate(got)]
    return {"samples": samples, "mode": mode, "note": note, "rotate": sets, "synced_us": synced, "pending_us": pending,
            "flush_l2": timer.flush is not None, "host_call_us": timer.host_call_us,
            "outputs": wire.send(side.folder, named, bool(msg.get("ipc"))), "fresh": said,
            "ledger": dict(timer.ledger), "own_calls": {"calls": len(own), "without_own": own.count(0),
                                                        "fewest": min(own[warm:], default=None),
                                                        "launched": launches.since(warm_shapes, launches.shapes())}}


def _probes(timer, call, median, rounds=3):
    """The smallest synchronized and pending times of three probes, and of up to `rounds` groups of three, spaced
    by a few milliseconds, while the smallest still show an escape (timing.stream_escape): a transient stall (another
    process, a clock change, a fresh machine's first run) can last through three probes in a row; work left on a
    side stream inflates every probe of every group."""
    probes = []
    for done in range(rounds):
        if done:
            time.sleep(0.005)
        probes += [(timer.synced(call), timer.pending(call)) for _ in range(3)]
        synced, pending = min(p[0] for p in probes), min(p[1] for p in probes)
        if not timing.stream_escape(synced, pending, median):
            break
    return synced, pending


def _tallied(call):
    """`call` counting the file's own launches of each call (launches: always on in this process, so nothing
    differs while counted): the kernel's timed samples are its own word on its time, held against the judge's
    tallied batches, and a sample call that ran none of the file's own kernels is work done by torch."""
    own = []

    def tallied(r):
        before = launches.total()
        try:
            return call(r)
        finally:
            own.append(launches.total() - before)
    return tallied, own


class _Fresh:
    """Before each timed sample, the input set it runs (every set before a graph replay) gets fresh values
    (timing.refreshed), the set's generation counting up; a set is refreshed only right before its own calls, so its
    last outputs belong to its last generation, which the judge rebuilds and checks."""

    def __init__(self, cases, fresh):
        self.fresh = fresh
        self.cases = cases
        self.rolls = timing.Rolls([timing.floating_inputs(c) for c in cases]) if fresh is not None else None
        self.generations = [0] * len(cases)

    def __call__(self, index):
        if self.fresh is None:
            return
        picked = range(len(self.cases)) if index is None else [index % len(self.cases)]
        for r in picked:
            self.generations[r] += 1
        rolls = self.rolls
        timing.refresh_sets([(rolls.live[r], rolls.originals[r], self.generations[r]) for r in picked], self.fresh)

    def ready(self):
        """The sets' Rolls (made on the first timed batch where the timed samples had no fresh values)."""
        if self.rolls is None:
            self.rolls = timing.Rolls([timing.floating_inputs(c) for c in self.cases])
        return self.rolls

    def reset_all(self, fresh, generation=1):
        """Every set's inputs at `generation` of `fresh` (a timed batch's round; the judge rebuilds the same)."""
        self.ready().all(fresh, generation)

    def report(self):
        return None if self.fresh is None else list(self.generations)


def _timer(side, o, l2):
    """The kernel process's Timer; its L2 flush buffer is made once per process (side.flush) and kept."""
    flush, ledger = None, {"device_s": 0.0, "compile_s": 0.0}
    if side.problem.device == "cuda" and o["flush_l2"] and l2:
        if getattr(side, "flush", None) is None:
            side.flush = timing.flush_buffer(l2)
        flush, ledger["flush_us"] = side.flush
    return timing.Timer(side.problem.device, flush, o, ledger)
