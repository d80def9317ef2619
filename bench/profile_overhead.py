"""`kgo profile` against the bare `ncu` run it wraps, timed alternately in the same session.

Usage: python3 bench/profile_overhead.py KGO WORKSPACE OP [ROUNDS]   (JSON on stdout)
A first `KGO profile --op OP --json` gives the exact ncu command kgo runs; then each round times the bare
command (its --log-file pointed at a scratch file) and `KGO profile` again. Target: kgo's median
wall time <= 1.2 x the bare median.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def kgo_profile(kgo, ws, op):
    t = time.perf_counter()
    p = subprocess.run([kgo, "profile", "--op", op, "--json", "--workspace", ws], capture_output=True, text=True)
    took = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"kgo profile failed ({p.returncode}): {p.stderr[-3000:]}")
    return took, json.loads(p.stdout)


def main():
    kgo, ws, op = sys.argv[1], sys.argv[2], sys.argv[3]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    _, first = kgo_profile(kgo, ws, op)
    command = first["ncu"]["command"]
    # kgo's wrapper puts its own libraries on LD_LIBRARY_PATH; the bare run gets the caller's environment.
    env = dict(os.environ)
    kgo_s, bare_s = [], []
    for _ in range(rounds):
        with tempfile.TemporaryDirectory() as d:
            bare = list(command)
            bare[bare.index("--log-file") + 1] = os.path.join(d, "bare.csv")
            t = time.perf_counter()
            b = subprocess.run(bare, capture_output=True, text=True, env=env)
            bare_s.append(time.perf_counter() - t)
            if b.returncode != 0:
                log = open(os.path.join(d, "bare.csv")).read() if os.path.exists(os.path.join(d, "bare.csv")) else ""
                sys.exit(f"bare ncu failed ({b.returncode})\nstdout: {b.stdout[-2000:]}\nstderr: {b.stderr[-2000:]}\n"
                         f"log: {log[-3000:]}")
        took, _ = kgo_profile(kgo, ws, op)
        kgo_s.append(took)
    out = {"kgo_profile_s": kgo_s, "bare_ncu_s": bare_s, "kgo_median_s": statistics.median(kgo_s),
           "bare_median_s": statistics.median(bare_s), "bare_command": command,
           "overhead": statistics.median(kgo_s) / statistics.median(bare_s) - 1, "target": "overhead <= 0.20"}
    print(json.dumps(out, indent=1))
    sys.stderr.write(f"kgo profile median {out['kgo_median_s']:.2f} s, bare ncu median {out['bare_median_s']:.2f} s, "
                     f"overhead {100 * out['overhead']:.1f}% (target <= 20%)\n")


if __name__ == "__main__":
    main()
