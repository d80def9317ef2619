#!/usr/bin/env python3
"""Cost of committing `spec` and `roofline` inside a transaction (target: at most 1.2x the cost before).

Times whole kgo processes of two builds side by side, interleaved run by run on one machine:
`spec remove hbm_bandwidth` + `spec auto` (two commits of specs.json and README.md) and
`kgo roofline --flops/--bytes` with a new count each run (a commit of roofline.json and README.md).
Prints median CPU ms (user+system of the kgo process; a busy shared machine inflates wall time far
more) and wall ms per command for each build, and the ratio new/old.

usage: bench/txn_commit_bench.py --old OLD_KGO --old-data OLD_SOURCE [--new build/cli/kgo] [--runs 15]
(bench/txn_commit_bench.sh builds the old commit in a temporary worktree and runs this.)
"""
import argparse
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import tempfile
import time

SOURCE = pathlib.Path(__file__).resolve().parents[1]


def run(kgo, args, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run([kgo, *map(str, args)], env=env, capture_output=True, text=True)
    wall = (time.perf_counter() - t0) * 1e3
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"{kgo} {' '.join(map(str, args[:3]))} failed (rc {p.returncode}): {p.stderr.strip()}")
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1e3, wall


def workspace(kgo, env, parent):
    kernel = SOURCE / "examples" / "softmax" / "kernel.py"
    run(kgo, ["init", "softmax", kernel, "--platform", "H100", "--dir", parent, "--shape", "4096x4096"], env)
    ws = parent / "kernel_opt_softmax"
    run(kgo, ["spec", "auto", "--workspace", ws], env)
    return ws


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--old-data", required=True)
    ap.add_argument("--new", default=str(SOURCE / "build" / "cli" / "kgo"))
    ap.add_argument("--runs", type=int, default=15)
    a = ap.parse_args()
    builds = {"old": (a.old, a.old_data), "new": (a.new, str(SOURCE))}
    times = {(b, c): [] for b in builds for c in ("spec", "roofline")}
    with tempfile.TemporaryDirectory() as tmp:
        wss, envs = {}, {}
        for b, (kgo, data) in builds.items():
            envs[b] = dict(os.environ, KGO_DATA_DIR=data, KGO_HARNESS_DAEMON="0")
            envs[b].pop("KGO_GPU_WIKI", None)
            parent = pathlib.Path(tmp) / b
            parent.mkdir()
            wss[b] = workspace(kgo, envs[b], parent)
        for i in range(a.runs):
            for b, (kgo, _) in builds.items():
                ws, env = wss[b], envs[b]
                c1, w1 = run(kgo, ["spec", "remove", "hbm_bandwidth", "--workspace", ws], env)
                c2, w2 = run(kgo, ["spec", "auto", "--workspace", ws], env)
                times[(b, "spec")].append(((c1 + c2) / 2, (w1 + w2) / 2))
                flops = f"2*4096*4096+{i}"
                times[(b, "roofline")].append(run(kgo, ["roofline", "--flops", flops, "--bytes", "8*4096*4096",
                                                        "--workspace", ws], env))
    print(f"{'command':<10} {'old cpu ms':>11} {'new cpu ms':>11} {'ratio':>6} {'old wall':>9} {'new wall':>9}")
    for c in ("spec", "roofline"):
        old = times[("old", c)]
        new = times[("new", c)]
        oc, nc = statistics.median(t[0] for t in old), statistics.median(t[0] for t in new)
        ow, nw = statistics.median(t[1] for t in old), statistics.median(t[1] for t in new)
        print(f"{c:<10} {oc:>11.1f} {nc:>11.1f} {nc / oc:>6.2f} {ow:>9.1f} {nw:>9.1f}")
    print(f"({a.runs} interleaved runs each; target: ratio <= 1.20)")


if __name__ == "__main__":
    main()
