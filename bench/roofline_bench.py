#!/usr/bin/env python3
"""`kgo roofline` on every catalog op x 20 shapes, against the 50 ms target (issue 4).

Makes one workspace (kgo init + kgo spec auto on the embedded wiki), then times whole `kgo roofline`
processes: the writing run (README sections, roofline.json, git commit) and the checking run
(--time-us, writes nothing). Prints the median and worst of N runs per op beside the target.

usage: bench/roofline_bench.py [--kgo build/cli/kgo] [--runs 7]
"""
import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

SOURCE = pathlib.Path(__file__).resolve().parents[1]
TARGET_MS = 50.0
OPS = ["vector_add", "vector_mul", "relu", "gelu", "dropout", "softmax", "layer_norm", "rms_norm", "sum", "mean",
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
    t0 = time.perf_counter()
    p = subprocess.run([kgo, *args], env=env, capture_output=True, text=True)
    ms = (time.perf_counter() - t0) * 1e3
    if p.returncode != expect_rc:
        sys.exit(f"kgo {' '.join(args[:3])} ... failed (rc {p.returncode}): {p.stderr.strip()}")
    return ms


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
        print(f"kgo roofline, 20 shapes per op, {a.runs} runs each (whole process: parse, registry, "
              f"arithmetic, README + roofline.json + commit); target {TARGET_MS:.0f} ms")
        print(f"{'op':<14} {'write median':>13} {'write max':>10} {'check median':>13} {'check max':>10}"
              f" {'worst / target':>15}")
        worst_all = 0.0
        for op in OPS:
            shapes = shapes_for(op)
            base = ["roofline", "--op", op, "--workspace", str(ws)]
            for s in shapes:
                base += ["--shape", s]
            write = [run(a.kgo, base, env) for _ in range(a.runs)]
            check = [run(a.kgo, base + [x for _ in shapes for x in ("--time-us", "1e9")], env, expect_rc=2)
                     for _ in range(a.runs)]
            worst = max(max(write), max(check))
            worst_all = max(worst_all, worst)
            print(f"{op:<14} {statistics.median(write):>10.1f} ms {max(write):>7.1f} ms "
                  f"{statistics.median(check):>10.1f} ms {max(check):>7.1f} ms {worst / TARGET_MS:>14.2f}x")
        print(f"worst single run: {worst_all:.1f} ms = {worst_all / TARGET_MS:.2f} x the {TARGET_MS:.0f} ms target")


if __name__ == "__main__":
    main()
