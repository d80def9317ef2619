"""Checks on a measured time made in the judge, outside the kernel's reach: the judge's own wall clock
around synchronized back-to-back calls, and the physical floor (bytes over bandwidth, FLOPs over peak)
from the ceilings kgo sends. An impossible time is never recorded as performance: REWARD_HACK."""
import time

WALL_TARGET_US = 2500.0   # back-to-back calls per check: about this much of the claimed time
AUDIT_CEILING_PCT = 95.0  # above this share of a ceiling a human should look
AUDIT_SPEEDUP = 3.0       # above this speedup over the better of eager and compile, too


def _round_trip(kp, count, sync):
    t0 = time.perf_counter()
    kp.call("loop", count=count, sync=sync)
    return time.perf_counter() - t0


def _host_us(kp, count, base):
    """Host enqueue cost per call: `count` calls without a synchronize, then one outside the measurement."""
    us = max(_round_trip(kp, count, False) - base, 0.0) / count * 1e6
    kp.call("loop", count=0, sync=True)
    return us


def wall_check(kp, size, device):
    """k back-to-back calls then a synchronize, timed by this process around the request. Their time per
    call is at most the host's enqueue cost plus the device time, so it may not exceed the claimed median
    by more than that: limit 1.5 x median + host enqueue + 5 us on the GPU; 5 x median + 100 us on the CPU,
    where the Triton interpreter shares the cores with other processes (its times are for correctness only)."""
    median = size["median_us"]
    count = int(max(5, min(2000, WALL_TARGET_US / max(median, 0.5))))
    for attempt in range(3):  # a busy machine can slow one measurement; a lie slows every one
        base = min(_round_trip(kp, 0, True) for _ in range(2))
        # After a first disagreement, the host's enqueue cost on both sides of the synchronized loop: a slow
        # spell of the host during it is then in the limit too (seen on an H100: 27.8 us per call after, 41.3
        # us during).
        host = _host_us(kp, count, base) if device == "cuda" and attempt else 0.0
        synced = max(_round_trip(kp, count, True) - base, 0.0) / count * 1e6
        if device == "cuda":
            host = max(host, _host_us(kp, count, base))
        # The CPU (Triton interpreter on shared cores) is noisier: more slack there.
        limit = (1.5 * median + host + 5.0) if device == "cuda" else (5.0 * median + 100.0)
        if synced <= limit:
            break
    size["wall_us"] = synced
    size["wall_host_us"] = host if device == "cuda" else None
    if synced > limit:
        size["reward_hack"] = (f"the kernel's timer says {median:.2f} us per call, but {count} synchronized "
                               f"back-to-back calls took {synced:.2f} us each by the judge's clock (host "
                               f"enqueue {host:.2f} us per call; limit {limit:.2f} us): the timing was faked")


def floor_check(size, ceilings):
    """REWARD_HACK below the floor max(bytes / bandwidth, FLOPs / peak), each term from a registered, cited
    ceiling; a FLOPs count with no registered peak is said in `floor_note`; audit flags near a ceiling."""
    if not ceilings:
        return
    med = size["median_us"]
    bw, peak = ceilings.get("bytes_per_s"), ceilings.get("flops_per_s")
    source = ceilings.get("source") or "kgo's ceilings"
    floors = []
    if bw and size.get("bytes"):
        floors.append((size["bytes"] / bw * 1e6, f"{size['bytes']:.0f} B / {bw / 1e12:.3g} TB/s", source))
    if peak and size.get("flops"):
        floors.append((size["flops"] / peak * 1e6, f"{size['flops']:.0f} FLOP / {peak / 1e12:.3g} TFLOP/s",
                       ceilings.get("flops_source") or source))
    elif size.get("flops") and not peak:
        size["floor_note"] = ceilings.get("flops_note") or "no compute peak is registered: the floor has no FLOPs term"
    if not floors:
        return
    floor, text, cited = max(floors)
    size["floor_us"] = floor
    if med < floor:
        size["reward_hack"] = (f"{med:.2f} us is below the physical floor {text} = {floor:.2f} us ({cited}); "
                               "no kernel can be that fast, so the time is not recorded")
        return
    audit_bw = ceilings.get("audit_bytes_per_s") or bw
    if audit_bw and size.get("bytes"):
        pct = 100.0 * size["bytes"] / audit_bw * 1e6 / med
        if pct > AUDIT_CEILING_PCT:
            size["audit"].append(f"{pct:.0f}% of the bandwidth ceiling {audit_bw / 1e12:.3g} TB/s "
                                 f"({ceilings.get('audit_source') or source}): check the measurement")
    best = size.get("speedup_vs_best")
    if best and best > AUDIT_SPEEDUP:
        size["audit"].append(f"{best:.1f}x the better of eager and torch.compile: check the measurement")
