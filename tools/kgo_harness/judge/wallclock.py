"""The judge's own clock on a measured time (PROTOCOL.md "Timing"). The kernel's process runs timed batches only
when the judge asks, one request each: rounds of fresh inputs for every timed set and one call per set (in graph mode
one graph of many rounds), a digest of each call's outputs in the reply. The judge times each
request around it, takes off what the same batch costs without the calls (its twin, run in the judge's process), picks
calls of the batch after the reply, fetches their outputs, and checks them against the digest and the reference.
Skipped calls then show as wrong outputs, work done after the reply as a digest that does not match, a forged event
time as a judge's time far above it."""
import contextlib
import math
import secrets
import time

import torch

from kgo_harness import procs, timing

WALL_TARGET_US = 2500.0   # timed batches per size: about this much of the claimed time, within the two bounds below
MIN_BATCHES, MAX_BATCHES = 2, 5
# Untimed batches before the timed ones, on a GPU: on an H200 the first batches of a 4096x4096 softmax took 1.5-2
# times the later ones (the fastest of five 384-445 us a call by the judge's clock without them, 200-330 with them).
WARM_BATCHES = 2
CHECKED = 2               # calls of the fastest batch the judge checks, picked after its reply
CPU_REQUEST_US = 400.0    # on the CPU, a batch request's fixed cost in the kernel's process, beyond an empty one's
# On a GPU, the same fixed cost (the handler, fresh values and digests launched from Python): an H200 showed an honest
# softmax at 4096x4096, one input set per batch (a set larger than L2), 270-380 us per call by the judge's clock
# against 33 us of events. Spread over the batch's sets, it bounds a lie tightly where sets are many (small sizes,
# where the physical floor is weak) and loosely where one set fills L2 (large sizes, where the floor is tight).
GPU_REQUEST_US = 400.0
# Graph mode, whose batches are many rounds of a graph held against their twin (Spot.emulate): on an H200 (2026-11-29)
# 16 honest kernels' judge's time was 0.46-1.42 x their events at 256x256 and 1024x1024 (64 runs each), a timer forged
# by 2 or 3 gave 2.0-3.3 x the forged median. The limit: GRAPH_FACTOR x the claim + GRAPH_SLACK_US + GRAPH_REQUEST_US /
# calls (the handler's own cost beyond an empty request's).
GRAPH_FACTOR, GRAPH_SLACK_US, GRAPH_REQUEST_US = 1.4, 0.25, 100.0
EMPTY_SHARE = 0.25        # the empty round trip subtracted from a batch's is at most this share of it
CONTROL_SLACK_US = 150.0  # the judge's own control batch: three launches and waits, spread over the batch's sets


QUIET_US = 150.0   # a short part of the judge's own work, its clock beyond its events, on a GPU no other work holds
DRAIN_S = 2.0      # how long the judge waits for work a stopped cell left on the GPU to end


class Hack(Exception):
    """What the judge's clock or a batch's checked call showed (the size's reward_hack)."""


class Shared(Exception):
    """The judge could not time its own work alone (the size is `untrusted`)."""


@contextlib.contextmanager
def alone(still, device):
    """Around the judge's own timings (the batches' overhead, the control, the baselines): the kernel's cell stopped
    (`still`: the pool's, None where no cell lives) and, on a GPU, what it queued there done: the kernel's process
    cannot slow the judge's own work to bend the figures held against it (a larger overhead to take off its batches,
    a slower eager baseline). Yields None, or why other work still holds the GPU after DRAIN_S."""
    if still is None:
        yield None
        return
    with still() as running:
        if running:
            yield (f"the judge could not time its own work alone: {len(running)} process(es) of the kernel's cell "
                   f"did not stop within {procs.STOP_WAIT_S:.0f} s; not recorded")
        else:
            yield drained() if device == "cuda" else None


def drained():
    """None once the GPU holds no other process's work: the least of three short parts of the judge's own work (a
    launch and its wait) exceeds its events by at most QUIET_US, where another context's work first makes it wait
    for a time slice (about a millisecond). Else, after DRAIN_S, why not."""
    deadline = time.perf_counter() + DRAIN_S
    while True:
        gap = min(_gap() for _ in range(3))
        if gap <= QUIET_US:
            return None
        if time.perf_counter() > deadline:
            return (f"the judge could not time its own work alone: with the kernel's cell stopped, a short part of it "
                    f"still waited {gap:.0f} us beyond its events after {DRAIN_S:.0f} s (work the cell left running, "
                    "or another process, holds this GPU); not recorded: rerun with the GPU to itself (nvidia-smi "
                    "lists the processes using it)")
        time.sleep(0.005)


def _gap():
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    e0.record()
    torch.cuda._sleep(100)
    e1.record()
    e1.synchronize()
    return (time.perf_counter() - t0) * 1e6 - e0.elapsed_time(e1) * 1e3


def _sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def _round_trip(kp, **fields):
    t0 = time.perf_counter()
    got = kp.call("batch", **fields)
    return time.perf_counter() - t0, got


IDLE_S = 0.002   # before each overhead measurement: the idle a batch request follows (the round trip, the checks)
ROUND_TARGET_US = 2000.0   # a timed batch runs rounds of one call per set until their claimed time is about this
MAX_ROUNDS = 64
HOLD_BYTES = {"cuda": 1 << 30, "cpu": 64 << 20}   # a batch's held outputs (every call's, until the checks) at most


def round_count(median, spot, device):
    """How many rounds of one call per input set each timed batch runs (the judge's number, sent with every batch):
    enough for about ROUND_TARGET_US of claimed time, so the request's own cost and its jitter spread over many
    calls, within MAX_ROUNDS and the memory the held outputs may take."""
    if spot.mode != "graph":   # eager calls launched from Python: more rounds make the batch host-bound
        return 1
    want = math.ceil(ROUND_TARGET_US / max(median * spot.sets, 0.5))
    room = HOLD_BYTES.get(device, HOLD_BYTES["cpu"]) // max(spot.sets * spot.output_bytes, 1)
    return int(max(1, min(MAX_ROUNDS, want, room)))


def overhead_us(device, spot, rounds, spin_us=0.0):
    """A timed batch's twin measured in this process on its own copies (the kernel cannot reach it): the same rounds
    of fresh inputs and held copies, a spin of `spin_us` for each call (in graph mode a graph of them),
    then the digests of every call's outputs (Spot.emulate); the smaller of two, each after an idle like a batch's
    (measured back to back instead, on an H200 it was half what the kernel's process spent on the same work;
    2026-11-28)."""
    def once():
        time.sleep(IDLE_S)
        _sync(device)
        t0 = time.perf_counter()
        spot.emulate(rounds, spin_us)
        _sync(device)
        return (time.perf_counter() - t0) * 1e6
    if spot.mode == "graph":
        once()   # untimed: the graph's capture and first upload, as the kernel's warm-up batches have them
    return min(once() for _ in range(2))


def _observe(kp, observed):
    """Closes the observer window of the batches just run (launches.Observer) and keeps its report for the size's
    delegation verdict (None: nothing was observed)."""
    got = kp.call("observed").get("observed")
    if observed is not None:
        observed.append(got)


def batches(kp, spot, device, median, limit, rounds, still=None):
    """Runs the judge's timed batches of `rounds` rounds each: enough for about WALL_TARGET_US of the claimed time,
    and more (up to MAX_BATCHES) while the fastest is above `limit` (a busy machine slows some batches, a lie every
    one). Returns (judge's wall per call with the overhead taken off, the overhead per call, the calls checked, the
    batches run). Raises Hack when a checked call's outputs are not what its batch committed or not the reference's
    for its inputs. Only the fastest batch's time counts, so its calls are the ones checked: a batch that skipped
    calls or deferred work past its reply is faster than the honest ones, hence the fastest, hence checked. The
    batches run in one tally window of the kernel's process (launches.Observer), which wall_check closes
    (`observed`)."""
    calls = spot.sets * rounds
    with alone(still, device) as busy:
        if busy:
            raise Shared(busy)
        # In graph mode the twin spins the claimed time per call: the batch's cost besides its calls is the twin's
        # time less its spins' (timed as the claim was, a graph of them by events), so an honest batch's time less
        # that cost is the claim, whatever the graph's nodes add.
        spin = median if spot.mode == "graph" else 0.0
        cost = overhead_us(device, spot, rounds, spin) / calls - (spot.spin_node_us(spin) if spin else 0.0)
    ask = {"rounds": rounds}
    count = int(max(MIN_BATCHES, min(MAX_BATCHES, math.ceil(WALL_TARGET_US / max(median * calls, 0.5)))))
    for _ in range(WARM_BATCHES if device == "cuda" else 0):   # in graph mode the first captures the graph
        _round_trip(kp, fresh=spot.fresh_key(), sync=True, **ask)
    empty = min(_round_trip(kp, empty=True)[0] for _ in range(3))
    walls, fastest = [], None
    for done in range(MAX_BATCHES):
        if done >= count and min(walls) - cost <= limit:
            break
        fresh = spot.fresh_key()
        seconds, got = _round_trip(kp, fresh=fresh, sync=True, **ask)
        digests = got.get("digests") if isinstance(got, dict) else None
        if not isinstance(digests, list) or len(digests) != calls:
            raise Hack(f"a timed batch of {calls} calls replied {digests!r:.200} for its outputs' digests")
        walls.append(max(seconds - min(empty, EMPTY_SHARE * seconds), 0.0) / calls * 1e6)
        if fastest is None or walls[-1] < fastest[0]:
            # Kept now, while the batch's outputs are held; fetched and checked after the last batch: work of this
            # process on the GPU between two batches would make the next one wait for the GPU to switch back to
            # the kernel's process, which the clock counts as the kernel's.
            picked = secrets.SystemRandom().sample(range(calls), min(CHECKED, calls))
            fastest = (walls[-1], spot.keep(kp, picked), picked, fresh, [digests[j] for j in picked])
    _, slots, picked, fresh, digests = fastest
    for j, outs, digest in zip(picked, spot.fetch(kp, slots), digests):
        if timing.digest(outs) != digest:
            raise Hack(f"call {j} of a timed batch returned outputs other than those its batch's reply "
                       "committed to: the work was done after the judge's clock stopped")
        if not spot.check(j, outs, fresh):
            raise Hack(f"call {j} of a timed batch (round {j // spot.sets + 1}, input set {j % spot.sets}, fresh "
                       "values) returned outputs that do not match the reference: calls of the batch were skipped "
                       "or answered from stale results")
    return max(min(walls) - cost, 0.0), cost, len(picked), len(walls)


class Control:
    """The judge's own known work timed as the kernel's batches are (a GPU only): per batch, the fresh values of the
    spot's sets, one spin of the claimed time per set, the digests, each part waited for, by this process's clock
    and by CUDA events around each part. On a GPU to itself the clock exceeds the events by the launches and the
    waits (tens of microseconds); on a GPU that other processes share, each part first waits for their time slice,
    which the clock counts and the events do not: the same time the judge's clock counts in the kernel's batches,
    where it cannot be told from a forged timer."""

    def __init__(self, timer, spot):
        self.timer, self.spot = timer, spot

    def _part(self, work):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        work()
        e1.record()
        e1.synchronize()
        return e0.elapsed_time(e1) * 1e3

    def __call__(self, median_us, batches):
        """The judge's wall time beyond the events' per call of its own batches, the least of `batches`."""
        sets = self.spot.sets

        def spins():
            for _ in range(sets):
                self.timer.hold(median_us)
        gaps = []
        for _ in range(max(batches, MIN_BATCHES + 1)):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            busy = self._part(lambda: self.spot.refresh_all(1)) + self._part(spins)
            busy += self._part(lambda: timing.digests(self.spot.outputs))
            gaps.append(max((time.perf_counter() - t0) * 1e6 - busy, 0.0) / sets)
        return min(gaps)


def _shared(control, median, sets, batches, still=None):
    """Why the judge's clock cannot vouch for this size (its own control batches, beyond their events, fail the
    kernel's test without the kernel's request cost), else None."""
    if control is None:
        return None
    with alone(still, "cuda") as busy:
        if busy:
            return busy
        gap = control(median, batches)
    if gap <= 0.5 * median + 5.0 + CONTROL_SLACK_US / sets:
        return None
    return (f"the judge's clock cannot vouch for this time: the judge's own batches of {sets} spins of "
            f"{median:.2f} us, timed as the kernel's are, took {gap:.2f} us a call more by its clock than by their "
            "events, so other work shares this GPU (another process's time slices count on the judge's clock); not "
            "recorded: rerun with the GPU to itself (nvidia-smi lists the processes using it)")


def host_us(kp, spot, rounds, observed=None):
    """Host enqueue cost per call by this process's clock: a batch without the synchronize (then one outside it)."""
    empty = min(_round_trip(kp, empty=True)[0] for _ in range(2))
    seconds, _ = _round_trip(kp, fresh=spot.fresh_key(), sync=False, rounds=rounds)
    kp.call("batch", empty=True, sync=True)
    _observe(kp, observed)
    return max(seconds - min(empty, EMPTY_SHARE * seconds), 0.0) / (spot.sets * rounds) * 1e6


def wall_check(kp, size, device, spot, observed=None, control=None, still=None):
    """Holds the kernel's median against the judge's clock. The judge's time per call (batches, overhead off) may
    exceed the median by at most GRAPH_FACTOR x + GRAPH_SLACK_US + GRAPH_REQUEST_US / calls in graph mode (rounds held
    against their twin), 1.5 x + 5 us + GPU_REQUEST_US / calls with events on the GPU (5 x + 100 us + CPU_REQUEST_US /
    calls on the CPU, where the interpreter shares the cores); on the GPU, where more is explained by the host's enqueue
    cost, the judge's time is recorded instead of the events; beyond that the timing was faked (REWARD_HACK). Past
    the limit, when the judge's own `control` work (Control) fails the same test, the GPU is shared: the size is
    `untrusted`, neither flagged nor recorded. A median above the judge's time is lowered to it."""
    median = size["median_us"]
    size["timed_by"] = "kernel"
    rounds = round_count(median, spot, device)
    calls = spot.sets * rounds
    # The CPU: the interpreter shares the cores, and a request's own fixed cost in the kernel's process (waking
    # it, the handler; up to about 0.4 ms seen on a loaded 2-core machine) is spread over the batch's calls.
    limit = (5.0 * median + 100.0 + CPU_REQUEST_US / calls) if device != "cuda" else \
        (GRAPH_FACTOR * median + GRAPH_SLACK_US + GRAPH_REQUEST_US / calls) if spot.mode == "graph" else \
        (1.5 * median + 5.0 + GPU_REQUEST_US / calls)
    try:
        wall, cost, checked, ran = batches(kp, spot, device, median, limit, rounds, still)
    except Hack as e:
        size["reward_hack"] = str(e)
        return
    except Shared as e:
        size["untrusted"] = size["message"] = str(e)
        return
    finally:
        _observe(kp, observed)
    size["wall_rounds"] = rounds
    size["wall_us"], size["wall_overhead_us"], size["wall_checked_calls"] = wall, cost, checked
    size["wall_host_us"] = None
    if wall + cost < median:
        size["median_us"], size["timed_by"] = wall + cost, "judge"   # events never exceed the judge's clock
        return
    if wall <= limit:
        return
    host = host_us(kp, spot, rounds, observed) if device == "cuda" else 0.0
    size["wall_host_us"] = host if device == "cuda" else None
    # Before either answer below: on a shared GPU the judge's time is the other processes' as much as the kernel's,
    # neither a lie to flag nor a time to record.
    shared = _shared(control, median, spot.sets, ran, still)
    if shared:
        size["untrusted"] = size["message"] = shared
        return
    if device == "cuda" and wall <= limit + host:
        size["median_us"], size["timed_by"] = wall, "judge"
        size["message"] = (f"back-to-back calls take {wall:.2f} us each by the judge's clock against {median:.2f} us "
                           f"by the kernel's timer, explained only by the host's enqueue cost ({host:.2f} us per "
                           "call): the judge's time is recorded")
        return
    size["reward_hack"] = (f"the kernel's timer says {median:.2f} us per call, but timed batches of back-to-back "
                           f"calls took {wall:.2f} us each by the judge's clock (batch overhead {cost:.2f} us and "
                           f"host enqueue {host:.2f} us per call taken off; limit {limit:.2f} us): the timing was "
                           "faked")
