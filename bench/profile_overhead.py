"""`kgo profile` against the bare `ncu` run it wraps, timed alternately in the same session.

Usage: python3 bench/profile_overhead.py KGO WORKSPACE OP [ROUNDS]   (JSON on stdout)
Each round: `KGO profile --op OP --json` (wall time), then the exact ncu command it recorded (its --log-file
pointed at a scratch file). Target (issue 7): kgo's median <= 1.2 x the bare median.
"""
import json
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    kgo, ws, op = sys.argv[1], sys.argv[2], sys.argv[3]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    kgo_s, bare_s, command = [], [], None
    for _ in range(rounds):
        t = time.perf_counter()
        p = subprocess.run([kgo, "profile", "--op", op, "--json", "--workspace", ws], capture_output=True, text=True)
        kgo_s.append(time.perf_counter() - t)
        if p.returncode != 0:
            sys.exit(f"kgo profile failed ({p.returncode}): {p.stderr[-2000:]}")
        command = json.loads(p.stdout)["ncu"]["command"]
        bare = list(command)
        with tempfile.TemporaryDirectory() as d:
            bare[bare.index("--log-file") + 1] = d + "/bare.csv"
            t = time.perf_counter()
            b = subprocess.run(bare, capture_output=True, text=True)
            bare_s.append(time.perf_counter() - t)
            if b.returncode != 0:
                sys.exit(f"bare ncu failed ({b.returncode}): {b.stderr[-2000:]}")
    out = {"kgo_profile_s": kgo_s, "bare_ncu_s": bare_s, "kgo_median_s": statistics.median(kgo_s),
           "bare_median_s": statistics.median(bare_s), "bare_command": command,
           "overhead": statistics.median(kgo_s) / statistics.median(bare_s) - 1, "target": "overhead <= 0.20"}
    print(json.dumps(out, indent=1))
    sys.stderr.write(f"kgo profile median {out['kgo_median_s']:.2f} s, bare ncu median {out['bare_median_s']:.2f} s, "
                     f"overhead {100 * out['overhead']:.1f}% (target <= 20%)\n")


if __name__ == "__main__":
    main()
