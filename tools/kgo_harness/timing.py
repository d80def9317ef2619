"""Timing on one device: CUDA events with the L2 flush and a hold outside the timed region, CUDA-graph mode
for launch-bound calls, the synchronized cross-check that counts side-stream work, host timing on the CPU.
Used by the kernel's process for the kernel and by the judge for the eager/compile baselines."""
import itertools
import math
import statistics
import time

import torch

from kgo_harness.protocol import is_cuda_fatal

# Device work that ended at most this long ago counts towards the next warm-up's time (the clocks it raised
# are still up): a baseline timed right after the kernel needs only the warm-up's calls. Checked on the GPU
# by `bench/gpu_probes.py warmup-credit` (the baseline's median with and without the credit).
HOT_WINDOW_S = 0.25
# The judge's last request's device work (ms, when it ended): a bench right after a check starts hot.
LAST_BUSY = {"ms": 0.0, "at": None}


def note_busy(ms):
    LAST_BUSY.update(ms=ms, at=time.perf_counter())


def recent_busy():
    """{"ms", "age_s"} of the last request's device work, or None when there was none."""
    if LAST_BUSY["at"] is None or LAST_BUSY["ms"] <= 0:
        return None
    return {"ms": LAST_BUSY["ms"], "age_s": time.perf_counter() - LAST_BUSY["at"]}


def stats(samples):
    s = sorted(samples)
    if len(s) >= 2:
        q1, _, q3 = statistics.quantiles(s, n=4, method="inclusive")
    else:
        q1 = q3 = s[0]
    return {"median_us": statistics.median(s), "iqr_us": q3 - q1, "mean_us": statistics.fmean(s),
            "min_us": s[0], "max_us": s[-1], "median_ci_pct": median_ci_pct(s)}


def median_ci_pct(samples):
    """Half-width of a distribution-free (at least) 95% confidence interval of the median, in % of the
    median: the order statistics at ranks n/2 -/+ 1.96 sqrt(n)/2 (1-based, rounded outwards). None below
    6 samples, where that interval would span the whole sample."""
    n = len(samples)
    if n < 6:
        return None
    s = sorted(samples)
    half = 0.98 * math.sqrt(n)
    lo = max(math.floor(n / 2 - half), 1) - 1
    hi = min(math.ceil(n / 2 + 1 + half), n) - 1
    med = statistics.median(s)
    return 100.0 * (s[hi] - s[lo]) / 2.0 / med if med > 0 else None


def until_precise(take, runs, precision_pct, max_runs):
    """take(k) -> k more samples. Takes `runs`, then more in steps of max(runs, 10) until the median's 95%
    interval is within +-precision_pct (0: never) or `max_runs` samples are in."""
    samples = take(runs)
    step = max(runs, 10)
    while precision_pct > 0 and len(samples) < max_runs:
        ci = median_ci_pct(samples)
        if ci is not None and ci <= precision_pct:
            break
        samples += take(min(step, max_runs - len(samples)))
    return samples


class Timer:
    """Times `call(r)` (r: input-set index) on one device; keeps the last outputs of every set.

    GPU samples: the L2 flush (a read of a buffer twice the L2 size, so it leaves no dirty lines that the
    timed kernel would have to write back, while the previous sample's dirty lines drain during it), then a
    short spin on the stream that outlasts the host's enqueueing of (start event, call, end event), so no
    host launch latency falls inside the events; the spin and the flush are outside the timed region."""

    def __init__(self, device, flush, opts, ledger):
        self.device = device
        self.flush = flush
        self.refresh = None
        self.replaying = False
        self.o = opts
        self.ledger = ledger   # accumulates device seconds and compile seconds
        self.host_call_us = 50.0
        self.cycles_per_us = None
        self.holds = 0
        self.waits = None   # True once the call is seen to wait for the device (a synchronize inside it)
        self.busy_ms, self.busy_at = 0.0, None

    def busy(self, ms, age_s=0.0):
        """Device work of `ms` milliseconds on this device ended `age_s` ago (the kernel's timing, a baseline's,
        the previous request's)."""
        self.busy_ms, self.busy_at = ms, time.perf_counter() - age_s

    def _credit_ms(self):
        if not self.o.get("warmup_credit", True) or self.busy_at is None:
            return 0.0
        if time.perf_counter() - self.busy_at > HOT_WINDOW_S:
            return 0.0
        return min(self.busy_ms, self.o["warmup_ms"])

    def _sync(self):
        if self.device == "cuda":
            torch.cuda.synchronize()

    def _calibrate(self):
        """GPU clock cycles per microsecond for torch.cuda._sleep, read when the clocks are up."""
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(100_000)
        e0.record()
        torch.cuda._sleep(400_000)
        e1.record()
        e1.synchronize()
        self.cycles_per_us = 400_000 / max(e0.elapsed_time(e1) * 1e3, 1.0)
        return self.cycles_per_us

    def hold(self, us):
        """Keeps the stream busy for about `us` microseconds (a spin kernel)."""
        torch.cuda._sleep(int(us * (self.cycles_per_us or self._calibrate())))
        self.ledger["device_s"] += us / 1e6
        self.holds += 1

    def before_sample(self, index=None):
        """Called before timed sample `index` (its input set: index % sets; None: a graph replay, every set),
        outside the timed region (bench_kernel._Fresh refreshes that set's inputs)."""
        if self.refresh is not None:
            self.refresh(None if self.replaying else index)

    def flush_l2(self):
        if self.flush is not None:
            self.flush.sum()

    def sampled(self, enqueue, runs):
        """`runs` clean samples of enqueue(i) between a start and an end event. Each sample is preceded by
        the flush and a hold; a sample counts only if the host finished enqueueing it before the hold ran
        out on the GPU (so no launch gap is inside the events); otherwise the hold doubles and it is
        taken again. A call that waits for the device (fmh66's solve() ends in cudaDeviceSynchronize) outlasts
        every hold: once a probe shows it, its samples are taken without one (`unheld`)."""
        if self.waits:
            return self.unheld(enqueue, runs)
        good = []
        hold_us = 1.5 * self.host_call_us + 10.0
        self.retakes = 0
        for _attempt in range(8):   # the hold doubles each time: up to about 11 ms when the host stalls
            need = runs - len(good)
            if need <= 0:
                break
            marks, starts, ends, host = [], [], [], []
            for i in range(need):
                self.before_sample(len(good) + i)
                self.flush_l2()
                m, s, e = (torch.cuda.Event(enable_timing=True) for _ in range(3))
                m.record()
                t0 = time.perf_counter()
                self.hold(hold_us)
                s.record()
                enqueue(len(good) + i)
                e.record()  # the end event, too, must be queued before the GPU gets to it
                host.append((time.perf_counter() - t0) * 1e6)
                marks.append(m), starts.append(s), ends.append(e)
            torch.cuda.synchronize()
            bad = 0
            for m, s, e, h in zip(marks, starts, ends, host):
                if h <= m.elapsed_time(s) * 1e3:
                    good.append(s.elapsed_time(e) * 1e3)
                else:
                    bad += 1
            self.retakes += bad
            if bad and self.waits is None and self.call_waits(enqueue, len(good)):
                self.waits = True
                return good + self.unheld(enqueue, runs - len(good))
            if bad:
                hold_us *= 2
                self._calibrate()
        if len(good) < runs:
            raise RuntimeError(f"could not take {runs} clean samples (the host outran a {hold_us:.0f} us hold)")
        return good

    def call_waits(self, enqueue, index, probe_us=2000.0):
        """Whether enqueue(index) waits for work queued before it: its host time behind a `probe_us` hold exceeds
        its host time with the device idle by most of the hold. A slow host is slow either way."""
        def host_us(held):
            torch.cuda.synchronize()
            if held:
                self.hold(probe_us)
            t0 = time.perf_counter()
            enqueue(index)
            took = (time.perf_counter() - t0) * 1e6
            torch.cuda.synchronize()
            return took
        idle = min(host_us(False) for _ in range(2))
        return host_us(True) - idle >= 0.8 * probe_us

    def unheld(self, enqueue, runs):
        """`runs` samples of a call that synchronizes itself: the flush, the device idle, then the events around
        enqueue(i). They include the call's launch on the host, which its own synchronize makes part of it."""
        good = []
        for i in range(runs):
            self.before_sample(i)
            self.flush_l2()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize()
            s.record()
            enqueue(i)
            e.record()
            e.synchronize()
            good.append(s.elapsed_time(e) * 1e3)
        return good

    def first_call(self, call, sets):
        start = time.perf_counter()
        outs = [call(r) for r in range(sets)]
        self._sync()
        self.ledger["compile_s"] += time.perf_counter() - start
        return outs

    def warmup(self, call, sets):
        if self.device != "cuda":
            for i in range(max(self.o["warmup"], 1)):
                call(i % sets)
            return
        credit = self._credit_ms()
        self.ledger["warmup_credit_s"] = self.ledger.get("warmup_credit_s", 0.0) + credit / 1e3
        done, spent, chunk = 0, credit, 1
        deadline = time.perf_counter() + 5.0 + self.o["warmup_ms"] * 20 / 1e3
        host = []
        while done < self.o["warmup"] or spent < self.o["warmup_ms"]:
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record()
            t0 = time.perf_counter()
            for j in range(chunk):
                call((done + j) % sets)
            host.append((time.perf_counter() - t0) * 1e6 / chunk)
            e1.record()
            e1.synchronize()
            spent += e0.elapsed_time(e1)
            done += chunk
            chunk = min(chunk * 2, 256)
            if time.perf_counter() > deadline:
                break
        # Host cost of one call plus the event records; the largest recent value, to be safe.
        self.host_call_us = max(host[-3:]) + 10.0
        self.ledger["device_s"] += (spent - credit) / 1e3
        self.ledger["warmup_s"] = self.ledger.get("warmup_s", 0.0) + (spent - credit) / 1e3
        self._calibrate()

    def events(self, call, sets, runs, precise=True):
        """`runs` samples of call(r) and every set's last outputs; with `precise`, more until the median is as
        precise as the options ask (an estimate that only picks the timing mode needs none)."""
        outs = [None] * sets
        precision = self.o["precision_pct"] if precise else 0
        if self.device != "cuda":
            calls = itertools.count()

            def take(k):
                got = []
                for _ in range(k):
                    n = next(calls)
                    r = n % sets
                    self.before_sample(n)
                    t0 = time.perf_counter()
                    outs[r] = call(r)
                    got.append((time.perf_counter() - t0) * 1e6)
                return got
            return until_precise(take, runs, precision, self.o["max_runs"]), outs
        def one(i):
            outs[i % sets] = call(i % sets)
        samples = until_precise(lambda k: self.sampled(one, k), runs, precision, self.o["max_runs"])
        self.ledger["device_s"] += sum(samples) / 1e6 + len(samples) * self.ledger.get("flush_us", 0) / 1e6
        return samples, outs

    def graph(self, call, sets, runs):
        batch = self.o["graph_batch"]
        g, outs = capture(call, sets, batch)
        g.replay()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        g.replay()
        self.host_call_us = (time.perf_counter() - t0) * 1e6 + 10.0
        torch.cuda.synchronize()
        self.replaying = True   # each sample replays every set's calls: before_sample refreshes them all
        try:
            total = until_precise(lambda k: self.sampled(lambda i: g.replay(), k), runs, self.o["precision_pct"],
                                  self.o["max_runs"])
        finally:
            self.replaying = False
        self.ledger["device_s"] += sum(total) / 1e6 + len(total) * self.ledger.get("flush_us", 0) / 1e6
        return [t / batch for t in total], outs, g

    def pending(self, call, trials=5):
        """Device work still running once the caller's stream is done with call(0): the time a device
        synchronize takes right after an event recorded behind the call completed, minus the same on an
        idle device. Near zero unless the call left work on another stream."""
        def one(with_call):
            torch.cuda.synchronize()
            e = torch.cuda.Event()
            if with_call:
                call(0)
            e.record()
            e.synchronize()
            t0 = time.perf_counter()
            torch.cuda.synchronize()
            return (time.perf_counter() - t0) * 1e6
        pairs = [(one(True), one(False)) for _ in range(trials)]  # interleaved: a slow spell hits both
        return max(statistics.median(p[0] for p in pairs) - statistics.median(p[1] for p in pairs), 0.0)

    def synced(self, call, trials=5):
        """Device time of call(0) on every stream, whatever stream its work went to: from an idle GPU,
        (start event; call; device synchronize; end event) minus the host's launch time and minus the same
        sequence without the call. No hold here: a hold on the caller's stream would not delay work on
        another stream, which could then finish before the start event."""
        def one(with_call):
            torch.cuda.synchronize()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            t0 = time.perf_counter()
            if with_call:
                call(0)
            launch = (time.perf_counter() - t0) * 1e6
            torch.cuda.synchronize()
            e.record()
            e.synchronize()
            return s.elapsed_time(e) * 1e3 - launch
        pairs = [(one(True), one(False)) for _ in range(trials)]  # interleaved: a slow spell hits both
        return max(statistics.median(p[0] for p in pairs) - statistics.median(p[1] for p in pairs), 0.0)


def stream_escape(synced, pending, median):
    """Whether the synchronized probes (Timer.synced, Timer.pending) show work escaping the caller's stream: both
    must agree, the synchronized time far above the stream-ordered `median`, and work measurably still running after
    the caller's stream finished (a fixed launch latency alone is not that)."""
    excess = synced - median
    return synced > 2 * median + 10.0 and pending > max(10.0, 0.25 * excess)


def flush_buffer(l2_bytes):
    """(a float32 buffer twice the L2's size, the microseconds one read of it takes): Timer's L2 flush."""
    flush = torch.ones(2 * l2_bytes // 4, dtype=torch.float32, device="cuda")
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    flush.sum()
    e0.record()
    flush.sum()
    e1.record()
    e1.synchronize()
    return flush, e0.elapsed_time(e1) * 1e3


def make_calls(cases, kind, compiled=None):
    if kind == "kernel":
        return lambda r: cases[r].run()
    if kind == "eager":
        fns = [c.eager() for c in cases]
        return lambda r: fns[r]()
    packed = [c.eager_callable() for c in cases]
    return lambda r: compiled(*packed[r][1], **packed[r][2])


def rotate_count(opt, cases_bytes, l2_bytes):
    if opt != "auto":
        return int(opt)
    if not l2_bytes or not cases_bytes:
        return 2
    return max(2, min(16, math.ceil(2 * l2_bytes / cases_bytes)))


def l2_bytes(device):
    """The L2 cache of the current device (0 on the CPU)."""
    return torch.cuda.get_device_properties(torch.cuda.current_device()).L2_cache_size if device == "cuda" else 0


def set_count(opt, case, device):
    """How many input sets a size's timed calls rotate through (`opt`: the request's `rotate`), from the bytes of one
    set, its inputs and output buffers: enough to cover twice the L2 cache, so no call finds its inputs there. The
    judge decides it and tells the kernel's process, whose reply must have timed that many (judge/bench.py)."""
    nbytes = sum(t.numel() * t.element_size() for t in case.input_tensors().values())
    nbytes += sum(t.numel() * t.element_size() for t in case.output_buffers())
    return rotate_count(opt, nbytes, l2_bytes(device))


def time_variant(timer, call, sets, mode, runs):
    """Returns (samples_us, mode used, outputs of the timed calls, note)."""
    note = ""
    timer.warmup(call, sets)
    if mode == "graph":
        try:
            samples, outs, _ = timer.graph(call, sets, runs)
            timer.busy(sum(samples) / 1e3)
            return samples, "graph", outs, note
        except Exception as e:
            if is_cuda_fatal(e):
                raise
            note = f"graph capture failed ({type(e).__name__}: {str(e)[:200]}); timed with events"
            torch.cuda.synchronize()
    samples, outs = timer.events(call, sets, runs)
    timer.busy(sum(samples) / 1e3)
    return samples, ("events" if timer.device == "cuda" else "host"), outs, note


FOREACH_BYTES = 1 << 20   # inputs up to this size are refreshed by one multi-tensor copy for all sets


def refreshed(tensors, originals, fresh, generation):
    """Fresh values for a timed input set, in place, reproducible by the judge: every floating input becomes its
    original values rolled (in flat order) by an offset drawn from (fresh, generation, its index). A roll keeps
    the values' domain (no NaN where the problem allows none) while a result cached by pointer or by the
    tensor's version goes stale. `originals`: the inputs as first made; `tensors`: the live ones (same order)."""
    refresh_sets([(tensors, originals, generation)], fresh)


def roll_offset(fresh, generation, index, numel):
    """How far `refreshed` rolls input `index` (of its set's floating inputs) of `numel` values (element-wise on int64
    tensors too: DeviceRolls)."""
    return (fresh * 1000003 + generation * 7919 + index * 104729) % numel


def refresh_sets(sets, fresh, skip=()):
    """`refreshed` for several sets [(tensors, originals, generation)] at once: every contiguous roll is two slice
    copies, and on a GPU all of them go as one multi-tensor copy (a batch's harness work is then the same few
    launches at 2 sets or 16, which the judge's clock would otherwise count against the kernel). Inputs whose index
    is in `skip` are left as they are (Rolls rolls them)."""
    dsts, srcs = [], []
    for tensors, originals, generation in sets:
        for i, (t, o) in enumerate(zip(tensors, originals)):
            if i in skip or not t.is_floating_point() or t.numel() < 2:
                continue
            k = roll_offset(fresh, generation, i, t.numel())
            if t.is_contiguous() and o.is_contiguous():   # the roll as two slice copies: no temporary, one pass
                dst, src, n = t.view(-1), o.view(-1), t.numel()
                if t.is_cuda and n * t.element_size() <= FOREACH_BYTES:
                    dsts += [dst[k:]] + ([dst[:k]] if k else [])
                    srcs += [src[:n - k]] + ([src[n - k:]] if k else [])
                else:   # a large copy is bandwidth-bound: the copy engine's path, not the multi-tensor kernel
                    dst[k:].copy_(src[:n - k])
                    dst[:k].copy_(src[n - k:])
            else:
                t.copy_(o.reshape(-1).roll(k).view_as(t))
    if dsts and hasattr(torch, "_foreach_copy_") and len({d.device for d in dsts + srcs}) == 1:
        torch._foreach_copy_(dsts, srcs)
    else:
        for d, s in zip(dsts, srcs):
            d.copy_(s)


ROLL_STACK_BYTES = 256 << 20   # an input's sets roll in one copy while its originals, kept twice, fit this


class Rolls:
    """The timed input sets' first values (`originals`, per set) and the fresh values `refreshed` gives them. For
    generation 1 of every set at once (`all`, a timed batch's), each input's originals are kept twice end to end in
    one buffer of all sets, so every set's roll is a row of one strided view: one multi-tensor copy and a few host
    operations per input at 2 sets or 32 (slicing each set cost about 80 us of host time a set on an H200 machine,
    which the judge's clock counts). An input unlike across sets, not contiguous, or too large keeps a plain copy and
    refresh_sets' per-set rolls. `live`: each set's floating inputs (floating_inputs), the same order in every set."""

    def __init__(self, live):
        self.live = live
        self.originals = [[None] * len(ts) for ts in live]
        self.stacked = []   # (input index, the live inputs flattened, the originals twice [sets, 2 n])
        alike = len({len(ts) for ts in live}) == 1
        for i in range(len(live[0]) if live else 0):
            column = [ts[i] for ts in live] if alike else []
            if column and self._stackable(column):
                n = column[0].numel()
                twice = torch.empty((len(column), 2 * n), dtype=column[0].dtype, device=column[0].device)
                for r, t in enumerate(column):
                    twice[r, :n].copy_(t.reshape(-1))
                    twice[r, n:].copy_(t.reshape(-1))
                    self.originals[r][i] = twice[r, :n].view(t.shape)
                self.stacked.append((i, [t.view(-1) for t in column], twice))
        for r, ts in enumerate(live):
            for i, t in enumerate(ts):
                if self.originals[r][i] is None:
                    self.originals[r][i] = t.clone()
        self.skip = {i for i, _, _ in self.stacked}

    @staticmethod
    def _stackable(column):
        t = column[0]
        return len(column) > 1 and t.numel() >= 2 and t.is_floating_point() and hasattr(torch, "_foreach_copy_") \
            and 2 * len(column) * t.numel() * t.element_size() <= ROLL_STACK_BYTES \
            and all(c.is_contiguous() and c.shape == t.shape and c.dtype == t.dtype and c.device == t.device
                    for c in column)

    def all(self, fresh, generation=1):
        """Every set's inputs at `generation` of `fresh`: each set's values as refresh_sets gives them."""
        for i, flats, twice in self.stacked:
            n = flats[0].numel()
            k = roll_offset(fresh, generation, i, n)   # row r, from n - k: originals[(j - k) mod n] at j
            torch._foreach_copy_(flats, list(twice[:, n - k:2 * n - k].unbind(0)))
        if len(self.skip) < max((len(ts) for ts in self.live), default=0):
            refresh_sets([(ts, os, generation) for ts, os in zip(self.live, self.originals)], fresh, self.skip)

    def one(self, r, fresh, generation):
        """Set r's inputs at `generation` of `fresh` (refreshed)."""
        refresh_sets([(self.live[r], self.originals[r], generation)], fresh)


def floating_inputs(case):
    """The floating input tensors of a case, in a fixed order (those `refreshed` changes)."""
    return [t for _, t in sorted(case.input_tensors().items()) if t.is_floating_point()]


STACK_BYTES = 64 << 20   # calls whose outputs together are at most this are digested in one pass


def _words(t):
    """A tensor's bytes as int64 words: a view where its size and offset allow, else a zero-padded copy (on an H200
    an int64 tensor's sum reads about twice as fast as an int32 tensor's summed into int64)."""
    flat = t.detach().reshape(-1)
    flat = flat if flat.is_contiguous() else flat.contiguous()
    raw = flat.view(torch.uint8) if flat.dtype != torch.bool else flat.to(torch.uint8)
    try:
        return raw.view(torch.int64)
    except RuntimeError:   # a byte count or a storage offset not a multiple of 8
        pad = -raw.numel() % 8
        return torch.cat([raw, raw.new_zeros(pad)]).view(torch.int64) if pad else raw.clone().view(torch.int64)


def digests(calls):
    """A digest of each call's outputs' exact bits (`calls`: one output or list of outputs per call): the sum modulo
    2**64 of the outputs' bytes read as int64 words (each output zero-padded to whole words), one read of them.
    Integer sums do not depend on their order, so the judge recomputes exactly what the kernel's process said, on
    any thread count. Any single flipped bit changes it (by 2**b, never 0 modulo 2**64). Calls of one layout are
    digested a chunk of up to STACK_BYTES at a time (one launch per chunk), others one by one; one transfer for all
    (on the CPU one by one). It is no cryptographic hash (PROTOCOL.md says what that leaves open)."""
    sums = digest_sums(calls)
    if sums is not None:   # CUDA tensors only: a few host operations per chunk at any number of calls
        return digest_values(sums)
    words, extra = [], []
    for outputs in calls:
        outs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
        words.append([_words(t) for t in outs if type(t) is torch.Tensor])
        extra.append(sum(sum(repr(t).encode()) * (i + 1) for i, t in enumerate(outs) if type(t) is not torch.Tensor))
    sums = [w.sum().reshape(1) for ws in words for w in ws]
    home = sums[0].device if sums else None
    values = iter(torch.cat([v.to(home) for v in sums]).tolist() if sums else [])
    return [(total + sum(next(values) for _ in ws)) % (1 << 64) for ws, total in zip(words, extra)]


def _stacked_words(calls):
    """The words of every call's outputs as the rows of a few tensors (each row what _words gives that call, each
    tensor up to STACK_BYTES), or None unless the calls' outputs are alike (the same number of plain CUDA tensors,
    shapes and dtypes, whole words, each call's at most STACK_BYTES): the usual timed batch, whose per-call views
    would cost host time the judge's clock counts."""
    outs = [list(c) if isinstance(c, (list, tuple)) else [c] for c in calls]
    first = outs[0] if outs else None
    if not first or len(outs) < 2 or any(type(t) is not torch.Tensor for t in first):
        return None
    if not first[0].is_cuda or any(t.dtype == torch.bool or t.numel() * t.element_size() % 8 for t in first):
        return None
    each = sum(t.numel() * t.element_size() for t in first)
    if 2 * each > STACK_BYTES:
        return None
    layout = [(t.shape, t.dtype, t.device) for t in first]
    if any(len(o) != len(first) or any(type(t) is not torch.Tensor or (t.shape, t.dtype, t.device) != lay
                                       for t, lay in zip(o, layout)) for o in outs):
        return None
    step = STACK_BYTES // each
    chunks = []
    for at in range(0, len(outs), step):
        part = outs[at:at + step]
        columns = [torch.stack([o[p].detach() for o in part]).reshape(len(part), -1).view(torch.uint8)
                   .view(torch.int64) for p in range(len(first))]
        chunks.append(columns[0] if len(columns) == 1 else torch.cat(columns, dim=1))
    return chunks


def digest(outputs):
    """timing.digests of one call's outputs."""
    return digests([outputs])[0]


def capture(call, sets, calls=None):
    """A CUDA graph of `calls` calls (default: one per input set) rotating over the sets, after a warm-up of each set
    on a side stream, and each set's last outputs in it."""
    _warm_up(call, sets)
    g = torch.cuda.CUDAGraph()
    outs = [None] * sets
    with torch.cuda.graph(g):
        for j in range(calls or sets):
            outs[j % sets] = call(j % sets)
    return g, outs


def _warm_up(call, sets, refresh=None):
    """Before a capture: refresh(0) (when given) and one call per set on a side stream, then the device idle."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        if refresh is not None:
            refresh(0)
        for r in range(sets):
            call(r)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()


def kept(outputs, copies):
    """A timed call's outputs as a batch holds them until the judge's checks: copies where the format writes them
    into the case's own buffers (`copies`: the next round's call would overwrite them), else the call's own."""
    if not copies:
        return outputs
    outs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
    return [t.clone() if type(t) is torch.Tensor else t for t in outs]


class DeviceRolls:
    """Rolls' fresh values for every round of a timed batch, driven from the device: each round's roll offsets sit
    in a device tensor written just before a captured graph replays, so the graph gives every round fresh values
    from a number the kernel's process learns only with the batch (never capturable in advance). Round g (from 0)
    gives each set what Rolls.all(fresh, g + 1) gives it."""

    def __init__(self, rolls, rounds):
        self.rolls = rolls
        self.inputs = []   # (set, input index, live tensor, the originals twice end to end; None where stacked)
        for r, ts in enumerate(rolls.live):
            for i, t in enumerate(ts):
                if t.is_floating_point() and t.numel() >= 2:
                    o = rolls.originals[r][i].reshape(-1)
                    self.inputs.append((r, i, t, None if i in rolls.skip else torch.cat([o, o])))
        device = self.inputs[0][2].device if self.inputs else "cpu"   # no floating input: nothing to refresh
        self.offsets = torch.zeros((rounds, max(len(self.inputs), 1)), dtype=torch.int64, device=device)
        self.base = {n: torch.arange(n, device=device) for n in {t.numel() for _, _, t, _ in self.inputs}}
        self.index = torch.tensor([i for _, i, _, _ in self.inputs] or [0], dtype=torch.int64)
        self.numel = torch.tensor([t.numel() for _, _, t, _ in self.inputs] or [1], dtype=torch.int64)
        self.generation = torch.arange(1, rounds + 1, dtype=torch.int64).view(-1, 1)

    def set(self, fresh):
        """Every round's offsets for `fresh` (n - k: the roll by k reads the originals twice from there), k as
        roll_offset gives it, computed at once (a few host operations at any number of rounds and sets)."""
        self.offsets.copy_(self.numel - roll_offset(fresh, self.generation, self.index, self.numel))

    def refresh(self, g):
        """Round g's values into every set's inputs (captured: reads the offsets when replayed). An input stacked
        across sets (Rolls.stacked) takes two launches for all sets (a gather of every set's row, a multi-tensor
        copy): a graph's launches cost the GPU about as much as a small call's, so few of them keep the batch the
        calls' own time."""
        index = {}
        for p, (_, i, t, _) in enumerate(self.inputs):
            index.setdefault((i, t.numel()), self.base[t.numel()] + self.offsets[g, p])   # one per input
        for i, flats, twice in self.rolls.stacked:
            rows = torch.index_select(twice, 1, index[(i, flats[0].numel())])
            torch._foreach_copy_(flats, list(rows.unbind(0)))
        for _, i, t, twice in self.inputs:
            if twice is None:
                continue
            if t.is_contiguous():
                torch.index_select(twice, 0, index[(i, t.numel())], out=t.view(-1))
            else:
                t.copy_(twice.index_select(0, index[(i, t.numel())]).view(t.shape))


def capture_rounds(call, sets, rounds, refresh=None, copies=False):
    """A CUDA graph of a timed batch's `rounds` rounds: refresh(g) (every set's fresh values), then one call per input
    set, every call's outputs held (`kept`) and digested in the graph when they are CUDA tensors (digest_sums), after
    a warm-up of each set on a side stream. Returns (graph, the held outputs of round g's call r at g * sets + r,
    their digests' device tensor or None). No L2 flush between rounds: it would be harness work the kernel's process
    could skip unseen, and the judge takes the batch's harness work off its time."""
    _warm_up(call, sets, refresh)
    g = torch.cuda.CUDAGraph()
    held, sums = [], []
    with torch.cuda.graph(g):
        for k in range(rounds):
            if refresh is not None:
                refresh(k)
            held += [kept(call(r), copies) for r in range(sets)]
            if sums is not None:
                one = digest_sums(held[-sets:])
                sums = None if one is None else sums + [one]
        total = torch.cat(sums) if sums else None
    return g, held, total


def digest_values(sums):
    """digest_sums' device tensor as digests gives them (one transfer; it waits for the device)."""
    return [v % (1 << 64) for v in sums.tolist()]


def digest_sums(calls):
    """The calls' digests (digests) as one device int64 tensor, or None unless every output is a CUDA tensor: sums
    wrap modulo 2**64 as digests' do, and no host work follows (a graph can hold it). Alike calls take one stack
    and one sum (few launches: see DeviceRolls.refresh)."""
    outs = [list(c) if isinstance(c, (list, tuple)) else [c] for c in calls]
    if not outs or any(not o or any(type(t) is not torch.Tensor or not t.is_cuda for t in o) for o in outs):
        return None
    chunks = _stacked_words(calls)
    if chunks is not None:
        return torch.cat([c.sum(dim=1) for c in chunks])
    return torch.stack([torch.stack([_words(t).sum() for t in o]).sum() for o in outs])


class Rounds:
    """A timed batch's rounds as KernelSide.batch runs them, and as the judge's twin (judge/bench.py, Spot.emulate)
    runs them again with a spin for each call: `rounds` rounds of call(r) for every set, fresh values before each
    from `rolls` (None: none), every call's outputs held (`kept`; copied where `case`'s format writes them into its
    own buffers). In graph mode (`graph`) the rounds are one graph, captured at the first run (capture_rounds) and
    replayed after every round's offsets are written (DeviceRolls)."""

    def __init__(self, call, sets, rounds, rolls, case, graph):
        self.call, self.sets, self.rounds, self.rolls, self.graph = call, sets, rounds, rolls, graph
        self.copies = rounds > 1 and bool(case.output_buffers())
        self.captured = None   # graph mode: (graph, held outputs, digest sums, DeviceRolls)

    def run(self, fresh, replay=None):
        """The rounds for the batch's `fresh` number; every call's held outputs, call r of round g at g * sets + r.
        `replay` wraps a graph's replay (the kernel's process counts replays)."""
        if not self.graph:
            held = []
            for g in range(self.rounds):
                if fresh is not None:
                    self.rolls.all(fresh, g + 1)
                held += [kept(self.call(r), self.copies) for r in range(self.sets)]
            return held
        if self.captured is None:
            device = DeviceRolls(self.rolls, self.rounds) if self.rolls is not None else None
            self.captured = capture_rounds(self.call, self.sets, self.rounds, device.refresh if device else None,
                                           self.copies) + (device,)
        graph, held, _, device = self.captured
        if device is not None:
            device.set(fresh)
        (replay or (lambda fn: fn()))(graph.replay)
        return held

    def digests(self, held):
        """The digests of the last run's calls (digests): the graph's own sums where it made them."""
        sums = self.captured[2] if self.captured is not None else None
        return digest_values(sums) if sums is not None else digests(held)
