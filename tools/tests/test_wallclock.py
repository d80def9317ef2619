"""The judge's clock on a kernel's time (judge/wallclock.py, PROTOCOL.md "The process boundary", 3): timed batches
the kernel's process runs only when asked, each call's outputs committed by digest, calls checked that the judge picks
after the reply. Attacks from the kernel's own process: forged samples, skipped calls, work deferred past the clock.
On the CPU the host clock times the kernel; on a GPU (when present) CUDA events, at a size the events can resolve."""
# ctest-cost: 11
import contextlib
import pathlib
import statistics
import subprocess
import sys
import time

import pytest
import torch

from kgo_harness import timing
from kgo_harness.judge import wallclock
from conftest import HAS_CUDA, TEMPLATES, kernel, needs_cuda

# (device, shape, rotate): the CPU's interpreter is slow, so small; a GPU's +5 us slack needs calls of tens of us,
# and many sets per batch (the request's fixed cost, GPU_REQUEST_US, is spread over them).
SETUPS = [("cpu", [8, 128], 8)] + ([("cuda", [4096, 4096], 32)] if HAS_CUDA else [])


def bench(harness, name, device, shape, rotate):
    return harness(command="bench", kernel=kernel(name), op="softmax", device=device, shapes=[shape],
                   bench={"runs": 5, "precision_pct": 0, "baselines": [], "rotate": rotate})


@pytest.mark.parametrize("device,shape,rotate", SETUPS)
def test_forged_samples_meet_the_judges_clock(harness, device, shape, rotate):
    res = bench(harness, "hack_event_forgery.py", device, shape, rotate)
    size = res["sizes"][0]
    if device == "cuda" and res["verdict"] == "PASS" and size["timed_by"] == "judge":
        # On a GPU a gap the host's measured enqueue cost explains gets the judge's own time recorded instead of
        # the samples (PROTOCOL.md, Tampering 3; seen in 2 of 6 H200 runs): the forgery is still not the record.
        forged = statistics.median(size["samples_us"])
        assert size["median_us"] >= 10 * forged, (size["median_us"], forged)
        return
    assert res["verdict"] == "REWARD_HACK", res["message"]
    assert "judge's clock" in res["message"] and "back-to-back" in res["message"], res["message"]


@pytest.mark.parametrize("device,shape,rotate", SETUPS)
def test_the_judge_decides_how_many_input_sets_the_timed_calls_rotate_through(harness, device, shape, rotate):
    """A kernel's process that times over one set (its inputs then in the cache after the first call) and says so."""
    res = bench(harness, "hack_few_sets.py", device, shape, rotate)
    assert res["verdict"] == "REWARD_HACK", res["message"]
    assert f"over 1 input sets where the judge asked for {rotate}" in res["message"], res["message"]


@pytest.mark.parametrize("device,shape,rotate", SETUPS)
def test_a_batch_handler_that_skips_calls_is_caught(harness, device, shape, rotate):
    """All but the last call of each batch skipped, the samples divided to match: the clocks agree, the checked
    calls' outputs do not."""
    res = bench(harness, "hack_batch_skip.py", device, shape, rotate)
    assert res["verdict"] == "REWARD_HACK", res["message"]
    assert "skipped or answered from stale results" in res["message"], res["message"]


@pytest.mark.parametrize("device,shape,rotate", SETUPS)
def test_calls_skipped_in_one_batch_only_are_caught_in_the_fastest_batch(harness, device, shape, rotate):
    """Only the second timed batch skips calls: it is the fastest, so its time would count, and its calls are the
    ones the judge checks (every other batch is honest)."""
    res = bench(harness, "hack_batch_skip_once.py", device, shape, rotate)
    assert res["verdict"] == "REWARD_HACK", res["message"]
    assert "skipped or answered from stale results" in res["message"], res["message"]


@pytest.mark.parametrize("device,shape,rotate", SETUPS)
def test_work_deferred_past_the_batch_reply_breaks_its_digest(harness, device, shape, rotate):
    res = bench(harness, "hack_batch_defer.py", device, shape, rotate)
    assert res["verdict"] == "REWARD_HACK", res["message"]
    assert "after the judge's clock stopped" in res["message"], res["message"]


@pytest.mark.parametrize("device,shape,rotate", SETUPS)
def test_an_honest_kernel_agrees_with_the_judges_clock(harness, device, shape, rotate):
    res = harness(command="bench", kernel=str(TEMPLATES / "softmax" / "v1_baseline.py"), op="softmax", device=device,
                  shapes=[shape], bench={"runs": 5, "precision_pct": 0, "baselines": [], "rotate": rotate})
    assert res["verdict"] == "PASS", res["message"]
    size = res["sizes"][0]
    assert size["wall_checked_calls"] == min(wallclock.CHECKED, rotate)
    assert size["wall_us"] > 0 and size["wall_overhead_us"] >= 0 and size["timed_by"] in ("kernel", "judge")
    assert size["median_us"] <= size["wall_us"] + size["wall_overhead_us"] + 1e-6   # events never above it
    # Its timed batches' calls were all observed, and no false alarm: own kernels in every call and sample.
    deleg = size["delegation"]
    assert deleg["delegated"] is False and deleg["sample_calls_without_own"] == 0, deleg
    assert deleg["calls_observed"] >= wallclock.MIN_BATCHES * rotate


@pytest.mark.parametrize("device,shape,rotate", SETUPS)
@pytest.mark.parametrize("name,why", [
    ("hack_deleg_unwatched.py", "calls ran none of the kernel file's own"),                        # (a)
    ("hack_deleg_batches.py", "calls ran none of the kernel file's own"),                           # (b)
    ("hack_deleg_after_k.py", ""),                                                                 # (c)
    ("hack_deleg_decoy.py", "which no observed call of this shape launched")])                      # (a) + decoy
def test_delegation_in_timed_calls_is_observed(harness, name, why, device, shape, rotate):
    """Attacks (a)-(c): torch's softmax only where a separate profiled pass would not look (no profiler on, a timed
    batch, after K calls). The judge's timed batches and the kernel's timed samples count each call's own launches,
    so bench fails each, where it had recorded torch's time as the kernel's. With a decoy launch of its own kernel
    beside torch's work, the timed calls' launches (the kernel with its grid) are not those of bench's observed runs
    of the same shape."""
    res = bench(harness, name, device, shape, rotate)
    size = res["sizes"][0]
    # (a) on the CPU: the interpreted kernel is far slower than torch, so the judge's clock also calls its samples
    # faked (REWARD_HACK); on a GPU, where the two are close, the delegation verdict alone fails it.
    assert res["verdict"] in ("FAIL", "REWARD_HACK") and size["delegation"]["delegated"] is True, res["message"]
    assert why in size["delegation"]["message"], size["delegation"]["message"]


# Another process keeping the GPU busy: large matmuls back to back, the queue never empty.
HOG = ("import sys, torch\na = torch.randn(8192, 8192, device='cuda')\n(a @ a).sum().item()\n"
       "print('ready', flush=True)\nwhile True:\n    a @ a\n")


@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA GPU")
def test_a_gpu_shared_with_another_process_never_makes_a_cheat_or_a_pass(harness):
    """On a GPU another process keeps busy, the judge's clock counts that process's time slices: an honest kernel
    is PASS or UNTRUSTED (the judge's own control batches slowed alike), never REWARD_HACK; a forged timer under
    the same load is never PASS."""
    hog = subprocess.Popen([sys.executable, "-c", HOG], stdout=subprocess.PIPE, text=True)
    try:
        assert hog.stdout.readline().strip() == "ready"
        honest = harness(command="bench", kernel=str(TEMPLATES / "softmax" / "v1_baseline.py"), op="softmax",
                         device="cuda", shapes=[[4096, 4096]], bench={"runs": 5, "baselines": []})
        forged = bench(harness, "hack_event_forgery.py", "cuda", [4096, 4096], 32)
    finally:
        hog.kill()
        hog.wait()
    assert honest["verdict"] in ("PASS", "UNTRUSTED"), honest["message"]
    if honest["verdict"] == "UNTRUSTED":
        assert "another process's time slices" in honest["message"], honest["message"]
    else:   # the other process's time slices are not the kernel's recorded time either
        size = honest["sizes"][0]
        assert size["median_us"] <= 3 * min(size["samples_us"]) + 10, (size["median_us"], size["timed_by"])
    assert forged["verdict"] in ("REWARD_HACK", "UNTRUSTED"), forged["message"]


@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA GPU")
def test_graph_mode_batches_replay_a_graph_and_agree(harness):
    """A launch-bound size is timed in graph mode; the judge's batches replay a graph of one call per set."""
    res = harness(command="bench", kernel=str(TEMPLATES / "softmax" / "v1_baseline.py"), op="softmax", device="cuda",
                  shapes=[[64, 256]], bench={"runs": 10, "precision_pct": 0, "baselines": [], "graph": "on"})
    assert res["verdict"] == "PASS", res["message"]
    size = res["sizes"][0]
    assert size["mode"] == "graph" and size["wall_checked_calls"] == wallclock.CHECKED
    assert size["median_us"] <= size["wall_us"] + size["wall_overhead_us"] + 1e-6


@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA GPU")
@pytest.mark.parametrize("shape", [[256, 256], [1024, 1024]])
def test_a_timer_forged_by_two_is_caught_where_the_inputs_fit_in_l2(harness, shape, tmp_path):
    """Where the physical floor is no bound (the inputs fit the L2), graph mode's many rounds against their twin
    hold a softmax whose `time` handler halves its samples: REWARD_HACK, or the judge's own time recorded (host-bound
    calls), never the forged one (an H200, 2026-11-29: 1.8-2.4 x the forged median by the judge's clock)."""
    (tmp_path / "hack_gpu_memory_hog.py").write_text(pathlib.Path(kernel("hack_gpu_memory_hog.py")).read_text())
    forgery = pathlib.Path(kernel("hack_event_forgery.py")).read_text()
    assert "s / 20" in forgery
    (tmp_path / "hack_event_forgery.py").write_text(forgery.replace("s / 20", "s / 2"))
    res = harness(command="bench", kernel=str(tmp_path / "hack_event_forgery.py"), op="softmax", device="cuda",
                  shapes=[shape], bench={"runs": 10, "precision_pct": 0, "baselines": []})
    size = res["sizes"][0]
    assert size["mode"] == "graph" and size.get("wall_rounds", 0) > 1, size
    forged = statistics.median(size["samples_us"])
    assert res["verdict"] == "REWARD_HACK" or (size["timed_by"] == "judge" and size["median_us"] >= 1.5 * forged), \
        (res["verdict"], res["message"], size.get("wall_us"), forged)


class _Batches:
    """A stand-in kernel process: a synchronized batch takes `synced_us` per call, one without the synchronize
    `host_us`; its outputs are fixed tensors, committed honestly."""

    def __init__(self, synced_us, host_us, sets=2, short=1):
        self.synced_us, self.host_us, self.sets = synced_us, host_us, sets
        self.rounds, self.short = [], short   # the rounds each batch was asked for; `short`: digests for 1/short
        self.outs = [[torch.full((4,), float(r))] for r in range(sets)]

    def call(self, op, **msg):
        if op == "batch_outputs":
            self.kept = list(msg["indices"])
            return {"kept": list(range(len(self.kept)))}
        if op == "kept_outputs":
            return {"outputs": [self.outs[self.kept[s] % self.sets] for s in msg["slots"]]}
        if op == "observed":
            return {"observed": None}
        if msg.get("empty"):
            return {}
        self.rounds.append(int(msg.get("rounds") or 1))
        calls = self.sets * self.rounds[-1] // self.short
        time.sleep(calls * (self.synced_us if msg.get("sync") else self.host_us) / 1e6)
        return {"digests": [timing.digest(self.outs[j % self.sets]) for j in range(calls)]} if msg.get("sync") else {}


class _Spot:
    def __init__(self, kp):
        self.sets, self.outputs, self.output_bytes, self.mode = kp.sets, kp.outs, 16, "events"

    def fresh_key(self):
        return None

    def refresh_all(self, key, generation=1):
        pass

    def emulate(self, rounds, spin_us=0.0):   # the twin of an honest batch: the claimed time per call
        time.sleep(self.sets * rounds * spin_us / 1e6)

    def keep(self, kp, picked):
        return kp.call("batch_outputs", indices=picked)["kept"]

    def fetch(self, kp, slots):
        return kp.call("kept_outputs", slots=slots)["outputs"]

    def check(self, j, outs, fresh):
        return True


def test_host_bound_calls_record_the_judges_time_and_a_lie_beyond_the_host_is_a_hack(monkeypatch):
    monkeypatch.setattr(wallclock, "_sync", lambda device: None)
    # Milliseconds of real sleep stand in for the calls: at 5 ms a call, a loaded machine's oversleeping (about a
    # millisecond a batch, seen once at 1 ms a call on the 2-core CI machine) stays well inside every margin below.
    # Claimed 5 ms a call; back-to-back calls take 15 ms, which the host's enqueue cost (14.5 ms) explains: the
    # judge's time is recorded, not the kernel's. The twin's time is taken off the judge's, and a loaded machine
    # can make the twin's sleep(0) take over a millisecond (0.66 ms a call once on the 2-core CI machine), so the
    # recorded time is held only to be far above the claim's limit (1.5 x 5 ms + 5 us), not to the sleep's 15 ms.
    kp = _Batches(15000.0, 14500.0)
    size = {"median_us": 5000.0}
    wallclock.wall_check(kp, size, "cuda", _Spot(kp))
    assert "reward_hack" not in size, size
    assert size["timed_by"] == "judge" and size["median_us"] >= 12500 and size["wall_host_us"] >= 12000
    # Claimed 5 ms for 40 ms of work, the host quick: the timing was faked.
    kp = _Batches(40000.0, 500.0)
    lie = {"median_us": 5000.0}
    wallclock.wall_check(kp, lie, "cuda", _Spot(kp))
    assert "the timing was faked" in lie["reward_hack"]
    # Within 1.5 x + 5 us: the kernel's time stands (claimed 10 ms, 10.5 ms a call: 9 ms a batch of oversleeping
    # to spare in the fastest batch).
    kp = _Batches(10500.0, 500.0)
    fine = {"median_us": 10000.0}
    wallclock.wall_check(kp, fine, "cuda", _Spot(kp))
    assert "reward_hack" not in fine and fine["timed_by"] == "kernel" and fine["median_us"] == 10000.0


def test_a_shared_gpu_is_untrusted_only_when_the_judges_own_work_is_slowed_alike(monkeypatch):
    """A clock verdict on a GPU that other processes share: the judge's own control batches (wallclock.Control)
    slowed alike make the size untrusted (no verdict on its time), and a quiet control keeps REWARD_HACK."""
    monkeypatch.setattr(wallclock, "_sync", lambda device: None)
    asked = []

    def control(us_per_call):
        def run(median, batches):
            asked.append((median, batches))
            return us_per_call
        return run
    kp = _Batches(8000.0, 100.0)
    shared = {"median_us": 1000.0}
    wallclock.wall_check(kp, shared, "cuda", _Spot(kp), control=control(7000.0))
    assert "reward_hack" not in shared and "another process's time slices" in shared["untrusted"], shared
    assert asked[0][0] == 1000.0 and asked[0][1] >= wallclock.MIN_BATCHES   # spins of the claimed time
    quiet = {"median_us": 1000.0}
    wallclock.wall_check(kp, quiet, "cuda", _Spot(kp), control=control(10.0))
    assert "the timing was faked" in quiet["reward_hack"] and "untrusted" not in quiet, quiet
    # Host-bound calls on a shared GPU: the judge's time is not recorded either.
    kp = _Batches(3000.0, 2900.0)
    host_bound = {"median_us": 1000.0}
    wallclock.wall_check(kp, host_bound, "cuda", _Spot(kp), control=control(7000.0))
    assert "untrusted" in host_bound and host_bound["median_us"] == 1000.0 and host_bound["timed_by"] == "kernel"
    # An honest time never asks the control (claimed 10 ms, 11 ms a call: 8 ms a batch of oversleeping to spare in
    # the fastest batch; at 1 ms a call a loaded machine's oversleeping could pass the limit).
    asked.clear()
    kp = _Batches(11000.0, 100.0)
    wallclock.wall_check(kp, {"median_us": 10000.0}, "cuda", _Spot(kp), control=control(90000.0))
    assert asked == []


@pytest.mark.parametrize("short", [1, 4])
def test_graph_mode_batches_run_the_judges_rounds_and_need_a_digest_for_every_call(monkeypatch, short):
    """Graph mode's rounds, the judge's side, without a GPU: every timed batch is asked for the judge's number of
    rounds (round_count), the calls checked are picked among every round's, and a reply with digests for fewer calls
    (a quarter: `short` 4) is REWARD_HACK. Milliseconds of real sleep stand in for the calls, as above."""
    monkeypatch.setattr(wallclock, "_sync", lambda device: None)
    monkeypatch.setattr(wallclock, "ROUND_TARGET_US", 40000.0)
    kp = _Batches(5000.0, 500.0, sets=2, short=short)
    spot = _Spot(kp)
    spot.mode, spot.spin_node_us = "graph", lambda us: us
    picked = []
    spot.check = lambda j, outs, fresh: picked.append(j) or True
    size = {"median_us": 5000.0}
    wallclock.wall_check(kp, size, "cuda", spot)
    rounds = wallclock.round_count(5000.0, spot, "cuda")
    assert rounds == 4 and set(kp.rounds) == {rounds}, kp.rounds
    if short > 1:
        assert f"a timed batch of {2 * rounds} calls replied" in size["reward_hack"], size
        return
    assert "reward_hack" not in size and size["wall_rounds"] == rounds and size["timed_by"] == "kernel", size
    assert picked and all(0 <= j < 2 * rounds for j in picked), picked


def test_outputs_that_differ_from_the_committed_digest_are_caught(monkeypatch):
    monkeypatch.setattr(wallclock, "_sync", lambda device: None)
    kp = _Batches(100.0, 10.0)
    spot = _Spot(kp)
    spot.fetch = lambda kp_, slots: [[kp.outs[kp.kept[s] % kp.sets][0] + 1] for s in slots]   # not the batch's outputs
    size = {"median_us": 100.0}
    wallclock.wall_check(kp, size, "cpu", spot)
    assert "after the judge's clock stopped" in size["reward_hack"]


def test_checked_outputs_are_fetched_after_the_last_batch(monkeypatch):
    """The judge keeps the picked calls' outputs in the kernel's process and fetches them only after its last timed
    batch, in one request: no work of its own on the GPU between two batches (the next would wait for the GPU to
    switch back)."""
    monkeypatch.setattr(wallclock, "_sync", lambda device: None)
    kp = _Batches(100.0, 10.0)
    ops, call = [], kp.call

    def logged(op, **msg):
        ops.append("timed" if op == "batch" and msg.get("sync") and not msg.get("empty") else op)
        return call(op, **msg)
    kp.call = logged
    size = {"median_us": 100.0}
    wallclock.wall_check(kp, size, "cpu", _Spot(kp))
    assert "reward_hack" not in size and size["wall_checked_calls"] == wallclock.CHECKED
    assert ops.count("timed") >= wallclock.MIN_BATCHES and ops.count("kept_outputs") == 1
    assert 1 <= ops.count("batch_outputs") <= ops.count("timed")
    last_timed = max(i for i, op in enumerate(ops) if op == "timed")
    assert all(i > last_timed for i, op in enumerate(ops) if op == "kept_outputs"), ops


@pytest.mark.parametrize("device", ["cpu"] + (["cuda"] if HAS_CUDA else []))
def test_a_batch_digest_is_each_calls_digest_and_sees_one_bit(device):
    """The kernel's process digests a whole batch at once (one pass on a GPU); the judge digests the one call it
    fetched: both must agree for every output layout (odd fp16 counts, bool, int64, a non-tensor value), and a
    single flipped bit must show."""
    def call(seed):
        g = torch.Generator().manual_seed(seed)
        return [t.to(device) for t in (torch.randn(3, 5, generator=g), torch.arange(7, dtype=torch.int64) * seed,
                                       torch.randn(3, generator=g).half(), torch.tensor([True, False, True]),
                                       torch.randn(4, 6, generator=g).t())] + [seed * 0.5]
    calls = [call(s) for s in range(5)]
    batch = timing.digests(calls)
    assert batch == [timing.digest(c) for c in calls]
    assert len(set(batch)) == len(batch)
    flipped = [t.clone() if isinstance(t, torch.Tensor) else t for t in calls[2]]
    flipped[2].view(torch.int16)[1] ^= 1          # the lowest mantissa bit of one fp16 output
    assert timing.digest(flipped) != batch[2]
    out = torch.randn(64, device=device)
    signs = []   # every float's sign bit, the top bit of its word: seen with any weight only when weights are odd
    for j in range(64):
        flipped = out.clone()
        flipped[j] = -flipped[j]
        signs.append(timing.digest([flipped]) != timing.digest([out]))
    assert all(signs), f"{signs.count(False)} of 64 sign flips unseen"
    plain = [[torch.randn(64, device=device)] for _ in range(16)]   # one layout: the stacked pass on a GPU
    assert timing.digests(plain) == [timing.digest(c) for c in plain]
    pairs = [[torch.randn(3, 5, device=device).t(), torch.randn(6, device=device).half()] for _ in range(8)]
    assert timing.digests(pairs) == [timing.digest(c) for c in pairs]   # two outputs a call, stacked per output


@pytest.mark.parametrize("device", ["cpu"] + (["cuda"] if HAS_CUDA else []))
def test_refreshing_sets_together_is_refreshing_each(device):
    made = [[torch.randn(33, device=device), torch.randn(4, 4, device=device).t()] for _ in range(3)]
    originals = [[t.clone() for t in s] for s in made]
    together = [[t.clone() for t in s] for s in made]
    timing.refresh_sets([(live, o, g + 1) for g, (live, o) in enumerate(zip(together, originals))], 4242)
    for g, (live, o) in enumerate(zip(made, originals)):
        timing.refreshed(live, o, 4242, g + 1)
    assert all(torch.equal(a, b) for s, r in zip(made, together) for a, b in zip(s, r))
    assert not torch.equal(made[0][0], originals[0][0]), "the values moved"


@pytest.mark.parametrize("device", ["cpu"] + (["cuda"] if HAS_CUDA else []))
@pytest.mark.parametrize("budget", [timing.ROLL_STACK_BYTES, 0])
def test_rolling_every_set_at_once_is_rolling_each(device, budget, monkeypatch):
    """Rolls.all (one strided copy per input for all sets, or per-set rolls past the buffer's budget) gives each
    set what refreshed gives it alone, keeps the first values, and is not the identity."""
    monkeypatch.setattr(timing, "ROLL_STACK_BYTES", budget)
    made = [[torch.randn(1000, 33, device=device), torch.randn(4, 4, device=device).t(),
             torch.randn(17, device=device).half()] for _ in range(5)]
    firsts = [[t.clone() for t in s] for s in made]
    rolls = timing.Rolls([[t.clone() for t in s] for s in made])
    assert bool(rolls.stacked) is (budget > 0)
    rolls.all(91)
    for live, first in zip(made, firsts):
        timing.refreshed(live, first, 91, 1)
    assert all(torch.equal(a, b) for s, r in zip(made, rolls.live) for a, b in zip(s, r))
    assert all(torch.equal(a, b) for s, r in zip(firsts, rolls.originals) for a, b in zip(s, r))
    assert not torch.equal(rolls.live[0][0], firsts[0][0])
    rolls.one(3, 7, 4)
    timing.refreshed(made[3], firsts[3], 7, 4)
    assert all(torch.equal(a, b) for a, b in zip(made[3], rolls.live[3]))


@pytest.mark.parametrize("device", ["cpu"] + (["cuda"] if HAS_CUDA else []))
@pytest.mark.parametrize("budget", [timing.ROLL_STACK_BYTES, 0])
def test_every_round_of_a_batch_rolls_from_the_device_as_rolls_all_does(device, budget, monkeypatch):
    """timing.DeviceRolls (a graph's rounds, offsets written on the device just before the replay) gives every set in
    round g what Rolls.all gives it at generation g + 1, for stacked, per-set and strided inputs."""
    monkeypatch.setattr(timing, "ROLL_STACK_BYTES", budget)
    made = [[torch.randn(300, 33, device=device), torch.randn(4, 4, device=device).t(),
             torch.randn(17, device=device).half()] for _ in range(3)]
    twin = timing.Rolls([[t.clone() for t in s] for s in made])
    rolls = timing.Rolls([[t.clone() for t in s] for s in made])
    rounds = timing.DeviceRolls(rolls, 3)
    rounds.set(5551212)
    for g in range(3):
        rounds.refresh(g)
        twin.all(5551212, g + 1)
        assert all(torch.equal(a, b) for s, r in zip(rolls.live, twin.live) for a, b in zip(s, r)), g
    assert not torch.equal(rolls.live[0][0], rolls.originals[0][0])
    idle = timing.DeviceRolls(timing.Rolls([[] for _ in range(3)]), 2)   # sets without a floating input
    idle.set(5551212)
    idle.refresh(1)


@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA GPU")
def test_a_graph_of_rounds_digests_every_call_as_the_judge_does():
    """timing.capture_rounds: every call of every round held apart (copies where the call writes one buffer) and its
    digest computed in the graph equal to timing.digest of the held outputs; fresh values each round."""
    x = [torch.randn(64, 33, device="cuda") for _ in range(2)]
    out = torch.empty(64, 33, device="cuda")
    w = torch.arange(64 * 33, device="cuda").view(64, 33) % 7 + 1.0   # a rolled input gives other word sums
    rolls = timing.Rolls([[t] for t in x])
    rounds = timing.DeviceRolls(rolls, 4)
    for copies, call in ((False, lambda r: [x[r] * w]), (True, lambda r: [torch.mul(x[r], w, out=out)])):
        graph, held, sums = timing.capture_rounds(call, 2, 4, rounds.refresh, copies)
        rounds.set(77)
        graph.replay()
        torch.cuda.synchronize()
        assert len(held) == 8 and [v % (1 << 64) for v in sums.tolist()] == [timing.digest(h) for h in held]
        assert len({timing.digest(h) for h in held}) == 8, "each round's values and each call's outputs apart"
        rolls.one(1, 77, 3)   # round 2 (generation 3) of set 1
        assert torch.equal(held[5][0], x[1] * w)


class _Probed:
    """A stand-in Timer whose synchronized probes show a stall for the first `stalled` probes (`always`: work left
    on a side stream, every probe)."""

    def __init__(self, stalled):
        self.stalled, self.probes = stalled, 0

    def synced(self, call):
        self.probes += 1
        return 21.8 if self.probes <= self.stalled else 4.3

    def pending(self, call):
        return 17.0 if self.probes <= self.stalled else 0.2


@pytest.mark.parametrize("stalled,escapes,probes", [(0, False, 3), (3, False, 6), (10 ** 6, True, 9)])
def test_a_stall_through_three_probes_is_probed_again_and_a_side_stream_is_not(stalled, escapes, probes):
    from kgo_harness.cell import bench_kernel
    timer = _Probed(stalled)
    synced, pending = bench_kernel._probes(timer, None, 4.1)
    assert timing.stream_escape(synced, pending, 4.1) is escapes
    assert timer.probes == probes



def test_the_judge_times_its_own_work_only_once_the_gpu_is_drained(monkeypatch):
    """wallclock.alone: the cell held (`still`), then on a GPU the judge's short probes waited for (drained): a gap
    that falls to QUIET_US lets the judge time; one that stays above it for DRAIN_S leaves the size untrusted; a
    process of the cell that did not stop does too; with no cell (still None) nothing is asked."""
    gaps, held = [900.0, 800.0, 700.0, 20.0], []

    @contextlib.contextmanager
    def still(running=()):
        held.append("stopped")
        yield list(running)
        held.append("continued")
    monkeypatch.setattr(wallclock, "_gap", lambda: gaps.pop(0) if len(gaps) > 1 else gaps[0])
    monkeypatch.setattr(wallclock.time, "sleep", lambda s: None)
    with wallclock.alone(still, "cuda") as busy:
        assert busy is None and held == ["stopped"]   # the last probes came under QUIET_US
    assert held == ["stopped", "continued"]
    gaps[:] = [2000.0]
    monkeypatch.setattr(wallclock, "DRAIN_S", 0.0)
    with wallclock.alone(still, "cuda") as busy:
        assert "could not time its own work alone" in busy and "2000 us" in busy
    with wallclock.alone(lambda: still([4242]), "cpu") as busy:
        assert "did not stop" in busy
    with wallclock.alone(still, "cpu") as busy:
        assert busy is None   # the CPU: the cell stopped is all there is to wait for
    held.clear()
    with wallclock.alone(None, "cuda") as busy:
        assert busy is None and held == []


MM_SHAPE = [16384, 16384, 16384]   # a bf16 matmul of about 13 ms on an H200: long enough for other work's time slices


def _matmul_bench(harness, name, baselines=("eager",)):
    return harness(command="bench", kernel=kernel(name), op="matmul", dtype="bfloat16", device="cuda",
                   shapes=[MM_SHAPE], bench={"runs": 5, "precision_pct": 0, "baselines": list(baselines), "rotate": 1})


@needs_cuda
def test_a_kernel_that_loads_the_gpu_while_idle_cannot_slow_the_eager_baseline(harness):
    """hack_idle_hog.py spins on the GPU whenever it is not called: the judge holds its cell still (stopped, its
    queued work done) while it times the eager baseline, which comes out as this process times the same matmul
    with no kernel process running; else the judge's matmul waits for the spins' time slices (1.4x on an H200)."""
    res = _matmul_bench(harness, "hack_idle_hog.py")
    size = res["sizes"][0]
    quiet = harness(command="bench", kernel=str(TEMPLATES / "softmax" / "v1_baseline.py"), op="softmax",
                    device="cuda", shapes=[[64, 64]], bench={"runs": 5, "precision_pct": 0, "baselines": []})
    assert quiet["verdict"] == "PASS", quiet["message"]   # another identity: the spinning process is ended
    if size.get("untrusted"):   # its spins still held the GPU after it stopped: no record, never a slower baseline
        assert "could not time its own work alone" in size["untrusted"], size
        return
    assert res["verdict"] == "PASS", res["message"]
    alone = _eager_alone(MM_SHAPE)
    assert size["eager_us"] <= 1.15 * alone, (size["eager_us"], alone)


def _eager_alone(shape):
    """The eager matmul's median by CUDA events in this process, no kernel process running."""
    m, n, k = shape
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    times = []
    for _ in range(7):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        torch.matmul(a, b)
        e1.record()
        e1.synchronize()
        times.append(e0.elapsed_time(e1) * 1e3)
    del a, b
    torch.cuda.empty_cache()
    return statistics.median(times[2:])


@needs_cuda
def test_a_kernel_that_loads_the_gpu_while_idle_cannot_inflate_the_judges_overhead(harness):
    """hack_hog_forgery.py forges its samples (a twentieth) and spins on the GPU whenever it is not called, to
    inflate the overhead the judge takes off its batches: the forged time is never the record. With the cell held
    still the judge's clock catches it (or records its own time); without, on an H200, the judge's control saw the
    spins and the size was UNTRUSTED."""
    res = harness(command="bench", kernel=kernel("hack_hog_forgery.py"), op="softmax", device="cuda",
                  shapes=[[4096, 4096]], bench={"runs": 5, "precision_pct": 0, "baselines": [], "rotate": 32})
    size = res["sizes"][0]
    forged = statistics.median(size["samples_us"])
    if res["verdict"] == "PASS":
        assert size["timed_by"] == "judge" and size["median_us"] >= 10 * forged, (size, res["message"])
    else:
        assert res["verdict"] in ("REWARD_HACK", "UNTRUSTED"), res["message"]
