#!/usr/bin/env python3
"""`kgo roofline` on every catalog op x 20 shapes, against the 50 ms target.

Makes one workspace (kgo init + kgo spec auto on the embedded wiki), then times whole `kgo roofline`
processes: the writing run (README sections, roofline.json, git commit) and the checking run
(--time-us, writes nothing). Prints the median and worst of N runs per op beside the target.

usage: bench/roofline_bench.py [--kgo build/cli/kgo] [--runs 7]
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
TARGET_MS = 50.0
OPS = ["add", "mul", "relu", "gelu", "dropout", "softmax", "layer_norm", "rms_norm", "sum", "mean",
       "cross_entropy", "matmul", "bmm", "attention"]


def shapes_for(op):
    """20 distinct shapes in the form the op reads (see `kgo roofline --explain`)."""
    sizes = [64 * (i + 1) for i in range(20)]
    if op == "matmul":
        return [f"{s}x{2 * s}x{s // 2}" for s in sizes]
    if op == "bmm":
        return [f"8x{s}x{s}x{s // 2}" for s in sizes]
    if op == "attention":
        return [f"4x16x{8 * s}x128" for s in sizes]
    return [f"{16 * s}x{s}" for s in sizes]


def run(kgo, args, env, expect_rc=0):
    """(wall ms, CPU ms): CPU = user + system time of the kgo process, which a busy shared machine
    does not inflate the way it inflates wall time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run([kgo, *args], env=env, capture_output=True, text=True)
    wall = (time.perf_counter() - t0) * 1e3
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != expect_rc:
        sys.exit(f"kgo {' '.join(args[:3])} ... failed (rc {p.returncode}): {p.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1e3
    return wall, cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kgo", default=str(SOURCE / "build" / "cli" / "kgo"))
    ap.add_argument("--runs", type=int, default=7)
    a = ap.parse_args()
    env = dict(os.environ, KGO_DATA_DIR=str(SOURCE))
    env.pop("KGO_GPU_WIKI", None)
    with tempfile.TemporaryDirectory() as tmp:
        kernel = SOURCE / "examples" / "softmax" / "kernel.py"
        run(a.kgo, ["init", "bench", str(kernel), "--platform", "H100", "--dir", tmp, "--dtype", "bf16"], env)
        ws = pathlib.Path(tmp) / "kernel_opt_bench"
        run(a.kgo, ["spec", "auto", "--workspace", str(ws)], env)
        print(f"kgo roofline, 20 shapes per op, {a.runs} runs each; whole kgo process (parse, registry, "
              f"arithmetic; the writing run also README + roofline.json + commit); target {TARGET_MS:.0f} ms")
        print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (wall time includes waiting "
              f"for a CPU; CPU time does not)")
        print(f"{'op':<14} {'write wall med/max':>19} {'write CPU med/max':>18} {'check wall med/max':>19} "
              f"{'check CPU med/max':>18}")
        worst_wall = worst_cpu = 0.0
        for op in OPS:
            shapes = shapes_for(op)
            base = ["roofline", "--op", op, "--workspace", str(ws)]
            for s in shapes:
                base += ["--shape", s]
            # Alternate the fraction so every writing run really rewrites README.md and roofline.json.
            write = [run(a.kgo, base + ["--fraction", str(0.9 - 0.01 * (i % 2))], env) for i in range(a.runs)]
            check = [run(a.kgo, base + [x for _ in shapes for x in ("--time-us", "1e9")], env, expect_rc=2)
                     for _ in range(a.runs)]
            cols = []
            for rows in (write, check):
                for k in (0, 1):
                    v = [r[k] for r in rows]
                    cols.append(f"{statistics.median(v):>8.1f} /{max(v):>6.1f} ms")
            worst_wall = max(worst_wall, max(r[0] for r in write + check))
            worst_cpu = max(worst_cpu, max(r[1] for r in write + check))
            print(f"{op:<14} {cols[0]:>19} {cols[1]:>18} {cols[2]:>19} {cols[3]:>18}")
        print(f"worst single run: wall {worst_wall:.1f} ms = {worst_wall / TARGET_MS:.2f} x target; "
              f"CPU {worst_cpu:.1f} ms = {worst_cpu / TARGET_MS:.2f} x target")

if __name__ == "__main__":
    main()
