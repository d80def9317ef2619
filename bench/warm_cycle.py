#!/usr/bin/env python3
"""Benchmark: one `kgo check` + `kgo bench` cycle, cold (a fresh harness process per command) against warm
(`kgo harness start`: Python, torch and compiled kernels stay loaded), beside the cycle's irreducible time:
the GPU time and compile time the harness itself reports (result.timing.device_s and compile_s).
Target: a warm cycle costs at most 2x its irreducible GPU and compile time.
Usage: bench/warm_cycle.py [path/to/kgo] [cycles] [cuda|cpu]   (workspace on examples/softmax; cpu: a smoke run
of the script itself at a small shape in the Triton interpreter, whose timings mean nothing)
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
KGO = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "build" / "cli" / "kgo")
CYCLES = int(sys.argv[2]) if len(sys.argv) > 2 else 3
DEVICE = sys.argv[3] if len(sys.argv) > 3 else "cuda"
CHECK_ARGS = [] if DEVICE == "cuda" else ["--device", "cpu", "--shape", "64x1000", "--trials", "1", "--no-edge-shapes"]
BENCH_ARGS = ["--size", "4096x4096"] if DEVICE == "cuda" else ["--device", "cpu", "--size", "64x1000", "--runs", "3",
                                                                "--precision", "0"]
RUNTIME = tempfile.mkdtemp(prefix="kgo-rt-", dir="/tmp")
ENV = dict(os.environ, KGO_DATA_DIR=str(ROOT), XDG_RUNTIME_DIR=RUNTIME)


def kgo(*args, daemon):
    env = dict(ENV, KGO_HARNESS_DAEMON="1" if daemon else "0")
    t = time.perf_counter()
    p = subprocess.run([KGO, *map(str, args)], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"kgo {' '.join(map(str, args))} failed ({p.returncode}): {p.stderr[-2000:]}")
    return json.loads(p.stdout) if "--json" in args else None, wall


def cycle(ws, daemon):
    check, cw = kgo("check", "--workspace", ws, *CHECK_ARGS, "--json", "--detail", daemon=daemon)
    bench, bw = kgo("bench", "--workspace", ws, *BENCH_ARGS, "--no-compile", "--no-record", "--json", "--detail", daemon=daemon)
    parts = {}
    for name, res in (("check", check["harness"]), ("bench", bench["harness"])):
        t = res.get("timing", {})
        parts[name] = {k: t.get(k) or 0.0 for k in ("wall_s", "worker_start_s", "import_s", "compile_s",
                                                     "device_s", "warmup_s", "host_s")}
        # Where the wall time went: waiting on the kernel's process, by its op, and the judge's own share.
        waits = {k: round(v, 4) for k, v in t.items() if k.startswith("kernel_") and isinstance(v, (int, float))}
        parts[name].update(waits, judge_own_s=round(parts[name]["wall_s"] - parts[name]["worker_start_s"]
                                                    - sum(waits.values()), 4))
        parts[name]["warm"] = res.get("worker", {}).get("warm")
    irreducible = sum(p["device_s"] + p["compile_s"] for p in parts.values())
    return {"kgo_wall_s": cw + bw, "check_wall_s": cw, "bench_wall_s": bw, "irreducible_s": irreducible,
            "ratio": (cw + bw) / irreducible if irreducible else None, "parts": parts}


def main():
    with tempfile.TemporaryDirectory() as parent:
        subprocess.run([KGO, "init", "softmax", ROOT / "examples/softmax/kernel.py", "--platform", "H200",
                        "--reference", ROOT / "templates/ops/softmax/ref.py", "--shape", "4096x4096", "--dir", parent],
                       env=ENV, check=True, capture_output=True)
        ws = pathlib.Path(parent) / "kernel_opt_softmax"
        rows = [("cold", cycle(ws, False)) for _ in range(CYCLES)]
        _, start_s = kgo("harness", "start", "--device", DEVICE, daemon=True)
        try:
            rows += [(f"warm #{i + 1}", cycle(ws, True)) for i in range(CYCLES)]
        finally:
            kgo("harness", "stop", daemon=True)
    check_what = " ".join(CHECK_ARGS) or "at 4096x4096 + edge shapes"
    print(f"kgo: {KGO}; workspace: examples/softmax on {DEVICE}; check {check_what}; bench {' '.join(BENCH_ARGS)} "
          f"(eager baseline); `kgo harness start` took {start_s:.2f} s")
    print(f"{'cycle':<9} {'kgo wall s':>10} {'check s':>8} {'bench s':>8} {'GPU s':>7} {'compile s':>9} "
          f"{'irreducible s':>13} {'ratio':>6}  worker warm (check, bench)")
    for name, r in rows:
        p = r["parts"]
        print(f"{name:<9} {r['kgo_wall_s']:>10.2f} {r['check_wall_s']:>8.2f} {r['bench_wall_s']:>8.2f} "
              f"{p['check']['device_s'] + p['bench']['device_s']:>7.3f} "
              f"{p['check']['compile_s'] + p['bench']['compile_s']:>9.3f} {r['irreducible_s']:>13.3f} "
              f"{r['ratio']:>6.2f}  {p['check']['warm']}, {p['bench']['warm']}")
    print("breakdown (last cold, last warm): " + json.dumps({"cold": rows[CYCLES - 1][1]["parts"],
                                                            "warm": rows[-1][1]["parts"]}))


if __name__ == "__main__":
    main()
