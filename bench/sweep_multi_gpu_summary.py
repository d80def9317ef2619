#!/usr/bin/env python3
"""Summary of bench/sweep_multi_gpu.sh: both GPUs busy at once, the wall-time ratio against one GPU, and each
job's GPU provenance. Usage: sweep_multi_gpu_summary.py OUT (with OUT/all, OUT/one, OUT/smi-*.csv)."""
import collections
import json
import pathlib
import sys


def results(d):
    files = sorted((d / "results").glob("*.json")) or sorted((d.parent / f"work-{d.name}" / "sweep" / "results").glob("*.json"))
    return [json.loads(f.read_text()) for f in files]


def wall(rs):
    return max(r["finished_unix"] for r in rs) - min(r["started_unix"] for r in rs)


def both_busy_seconds(rs):
    """Seconds during which every GPU used by the sweep had a job running."""
    by_gpu = collections.defaultdict(list)
    for r in rs:
        by_gpu[r["provenance"]["cuda_visible_devices"]].append((r["started_unix"], r["finished_unix"]))
    if len(by_gpu) < 2:
        return 0.0, len(by_gpu)
    events = sorted({t for spans in by_gpu.values() for s in spans for t in s})
    total = 0.0
    for a, b in zip(events, events[1:]):
        mid = (a + b) / 2
        if all(any(s <= mid < e for s, e in spans) for spans in by_gpu.values()):
            total += b - a
    return total, len(by_gpu)


def smi_both_busy(csv):
    """(share of nvidia-smi samples in which every GPU reported utilization > 0, share in which every GPU had
    memory in use (a CUDA context: a job's process is on it), number of samples)."""
    samples = collections.defaultdict(dict)
    if not csv.exists():
        return None, None, 0
    for line in csv.read_text().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 5 or not parts[3].rstrip(" %").isdigit() or not parts[4].split()[0].isdigit():
            continue
        samples[parts[0]][parts[1]] = (int(parts[3].rstrip(" %")), int(parts[4].split()[0]))
    full = [s for s in samples.values() if len(s) >= 2]
    if not full:
        return None, None, 0
    util = sum(all(u > 0 for u, _ in s.values()) for s in full) / len(full)
    mem = sum(all(m > 0 for _, m in s.values()) for s in full) / len(full)
    return util, mem, len(full)


def main():
    out = pathlib.Path(sys.argv[1])
    a, o = results(out / "all"), results(out / "one")
    if not a or not o:
        print(f"missing results: all {len(a)}, one {len(o)}")
        return 1
    wa, wo = wall(a), wall(o)
    busy, ngpu = both_busy_seconds(a)
    share, mem_share, nsamples = smi_both_busy(out / "smi-all.csv")
    pins = collections.defaultdict(set)
    for r in a:
        pins[r["provenance"]["cuda_visible_devices"]].add((r["provenance"]["gpu"] or {}).get("uuid"))
    seen_ok = sum(r["provenance"].get("device_uuid") is not None
                  and r["provenance"]["device_uuid"] == (r["provenance"]["gpu"] or {}).get("uuid") for r in a + o)
    uuids = {u for s in pins.values() for u in s}
    ok_status = all(r["status"] == "ok" for r in a + o) and len(a) == len(o)
    checks = [
        ("every job ok", ok_status, f"{sum(r['status'] == 'ok' for r in a)}/{len(a)} (all GPUs), "
                                    f"{sum(r['status'] == 'ok' for r in o)}/{len(o)} (one GPU)"),
        ("both GPUs busy at once", ngpu >= 2 and busy / wa >= 0.5,
         f"{ngpu} GPUs; every GPU had a job running for {busy:.1f} s of the {wa:.1f} s wall ({busy / wa:.0%})"
         + (f"; nvidia-smi, {nsamples} samples: every GPU with a CUDA context in {mem_share:.0%}, every GPU above 0%"
            f" utilization in {share:.0%} (a job spends most of its time starting Python and torch, not on the GPU)"
            if share is not None else "; no nvidia-smi samples")),
        ("wall <= 0.6x one GPU", wa / wo <= 0.6, f"{wa:.1f} s on all GPUs vs {wo:.1f} s on GPU 0: ratio {wa / wo:.2f}"),
        ("each job names its GPU", len(uuids) >= 2 and None not in uuids and all(len(s) == 1 for s in pins.values()),
         "; ".join(f"CUDA_VISIBLE_DEVICES={k}: {sorted(map(str, v))}" for k, v in sorted(pins.items()))),
        ("harness ran on the pinned GPU", seen_ok == len(a) + len(o), f"{seen_ok}/{len(a) + len(o)} jobs"),
    ]
    print(f"# kgo sweep on {ngpu} GPUs vs one GPU\n")
    for name, ok, detail in checks:
        print(f"- {'PASS' if ok else 'FAIL'} {name}: {detail}")
    return 0 if all(ok for _, ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
