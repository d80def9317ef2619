#!/usr/bin/env python3
"""What the kernel's cell costs, old beside new: the harness of an older tree (no cell) and this tree's (the cell)
on the same machine, alternating round by round:
  cold   a one-shot `check` of examples/softmax at SIZE (a fresh supervisor, judge and kernel process each time);
  warm   a check + bench cycle of the same kernel through one warm `serve` harness (the first cycle, which starts the
         judge and compiles, is left out);
  other  the same one-shot check asked for from a new folder each time (its cwd and PWD: another workspace's, as a
         sweep job's or an agent's next workspace), after `cold` left the side's judges' template running.
Prints the medians and new/old ratios (goals: warm <= 1.25, cold <= 1.25: issue 29's performance section).
The old tree is a folder holding an older `tools/kgo_harness` (git archive REV tools | tar -x -C DIR).
Usage: bench/cell_overhead.py OLD_TREE [--device cuda|cpu] [--rounds N] [--cycles N] [--size N]"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
KERNEL = ROOT / "examples" / "softmax" / "kernel.py"


def requests(device, size):
    check = {"command": "check", "kernel": str(KERNEL), "op": "softmax", "device": device,
             "shapes": [[size, size]], "trials": 1 if device == "cpu" else 3}
    bench = {"command": "bench", "kernel": str(KERNEL), "op": "softmax", "device": device,
             "shapes": [[size, size]], "bench": {"runs": 10, "precision_pct": 0, "baselines": []}}
    return check, bench


def cold(tree, req, folder=None):
    env = dict(os.environ, PWD=str(folder)) if folder else None
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-I", str(tree / "tools" / "kgo_harness"), "check"], cwd=folder or ROOT,
                         input=json.dumps(req), capture_output=True, text=True, timeout=300, env=env)
    wall = time.perf_counter() - t0
    res = json.loads(out.stdout)
    return wall, res["verdict"], res.get("cell", {}).get("confinement")


def warm(tree, reqs, cycles):
    proc = subprocess.Popen([sys.executable, str(tree / "tools" / "kgo_harness"), "serve"], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def ask(req):
        proc.stdin.write(json.dumps(req) + "\n")
        proc.stdin.flush()
        return json.loads(proc.stdout.readline())
    walls, verdicts = [], set()
    for i in range(cycles + 1):
        t0 = time.perf_counter()
        for req in reqs:
            verdicts.add(ask(req)["verdict"])
        if i:
            walls.append(time.perf_counter() - t0)
    proc.stdin.close()
    proc.wait(timeout=60)
    return walls, verdicts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old", type=pathlib.Path)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cycles", type=int, default=5)
    ap.add_argument("--size", type=int, default=4096)
    a = ap.parse_args()
    check, bench = requests(a.device, a.size)
    sides = {"old": a.old.resolve(), "new": ROOT}
    got = {s: {"cold": [], "warm": [], "other": [], "verdicts": set(), "cell": set()} for s in sides}
    for rnd in range(a.rounds):
        for side in (("old", "new") if rnd % 2 == 0 else ("new", "old")):
            wall, verdict, cell = cold(sides[side], check)
            got[side]["cold"].append(wall)
            got[side]["verdicts"].add(verdict)
            got[side]["cell"].add(str(cell))
            with tempfile.TemporaryDirectory() as folder:
                other, verdict, _ = cold(sides[side], check, folder)
            got[side]["other"].append(other)
            got[side]["verdicts"].add(verdict)
            walls, verdicts = warm(sides[side], [check, bench], a.cycles)
            got[side]["warm"] += walls
            got[side]["verdicts"] |= verdicts
            print(f"round {rnd} {side}: cold {wall:.3f} s, from another folder {other:.3f} s, "
                  f"warm cycles {', '.join(f'{w:.3f}' for w in walls)} s", flush=True)
    print(f"\n| side | cold check (median s) | from another folder (median s) | warm check+bench (median s) | "
          "verdicts | cell |")
    print("|---|---|---|---|---|---|")
    for side in sides:
        g = got[side]
        print(f"| {side} | {statistics.median(g['cold']):.3f} | {statistics.median(g['other']):.3f} | "
              f"{statistics.median(g['warm']):.3f} | "
              f"{', '.join(sorted(g['verdicts']))} | {', '.join(sorted(g['cell']))} |")
    for what, goal in (("cold", 1.25), ("other", 1.0), ("warm", 1.25)):
        ratio = statistics.median(got["new"][what]) / statistics.median(got["old"][what])
        print(f"{what}: new/old = {ratio:.3f} (goal <= {goal}): {'met' if ratio <= goal else 'NOT met'}")


if __name__ == "__main__":
    main()
