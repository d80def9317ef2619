#!/usr/bin/env python3
"""H200 evidence for the judge's process boundary (tools/kgo_harness/PROTOCOL.md, "The process boundary").
  honest   every honest kernel in templates/ops/<op>/ (folders with ref.py; skeletons whose
           files still hold `{{...}}` placeholders are listed as skipped, never counted), in complete runs: one
           run = a check at the op's default shapes + edge shapes and a bench at 256², 1024², 4096² of every
           kernel, through one warm harness. A kernel's run is clean when both say PASS with no REWARD_HACK,
           side-stream or FAIL flag. --runs N runs (default 10); --deadline S stops starting new runs after S
           seconds and says how many completed.
  cheats   the timing cheats: timer patching, timer patches that first blind the in-process tamper check
           (host clock and, on the GPU, events), side streams without a join, and a kernel over its GPU
           memory cap; each must be caught.
  cycle    the warm check+bench cycle and the cold check of examples/softmax (bench/warm_cycle.py), the new
           kgo and the old tree's kgo alternating round by round, with medians and new/old ratios.
  lies     how far a forged timer goes: the samples of an honest softmax divided by 1.15-3x, four sizes, --runs
           rounds; each forgery whose median is recorded is listed (a limit of the judge's clock, PROTOCOL.md).
Usage: bench/judge_h200.py honest|cheats|cycle|lies --out DIR [--device cuda|cpu] [options below]
(cpu: a smoke run of the script itself on tiny shapes in the Triton interpreter; its numbers mean nothing)."""
import argparse
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
ENTRY = ROOT / "tools" / "kgo_harness"
sys.path.insert(0, str(ROOT / "tools" / "tests"))
import kernel_files  # noqa: E402  (the attack kernels, written out of their bundles)

KERNELS = kernel_files.folder()
CYCLE_GOALS = {"warm_cycle_s": 1.25, "cold_check_s": 1.25}   # new/old, from the performance section
IRREDUCIBLE_GOAL = 2.0                                      # warm cycle / (GPU + compile time)


class Serve:
    def __init__(self, log):
        self.proc = subprocess.Popen([sys.executable, str(ENTRY), "serve"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=open(log, "w"), text=True, cwd=ROOT)

    def __call__(self, **req):
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            sys.exit("the harness ended; see its log")
        return json.loads(line)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def skeleton_reason(folder):
    """Why a folder is a template skeleton rather than a kernel, or None: its files hold unfilled placeholders."""
    for f in sorted(folder.glob("*.py")):
        found = re.search(r"\{\{\s*\w+\s*\}\}", f.read_text(errors="replace"))
        if found:
            return f"{f.name} holds the unfilled placeholder {found.group(0)} (`kgo ops` fills it per op)"
    return None


def honest_kernels():
    """([(op, kernel path)], [(folder, why skipped)]) over templates/ops/ (the only copy of each variant)."""
    kernels, skipped = [], []
    for base in (ROOT / "templates" / "ops",):
        for folder in sorted(p for p in base.iterdir() if p.is_dir() and (p / "ref.py").is_file()):
            why = skeleton_reason(folder)
            if why:
                skipped.append((str(folder.relative_to(ROOT)), why))
                continue
            kernels += [(folder.name, k) for k in sorted(folder.glob("*.py")) if k.name != "ref.py"]
    return kernels, skipped


def one_run(h, op, k, args):
    """A check and a bench of one kernel; (clean, flags, medians by size, counts)."""
    cuda = args.device == "cuda"
    check = {"command": "check", "kernel": str(k), "op": op, "device": args.device}
    if not cuda:
        check.update(shapes=[[8, 64]], edge_shapes=False, trials=1)
    bench = {"command": "bench", "kernel": str(k), "op": op, "device": args.device,
             "shapes": [[256, 256], [1024, 1024], [4096, 4096]] if cuda else [[8, 64]],
             "bench": {"runs": 10, "precision_pct": 0, "baselines": []}}
    flags, counts, medians = [], {"hack": 0, "side_stream": 0, "audit": 0}, {}
    for what, req in (("check", check), ("bench", bench)):
        res = h(**req)
        if res["verdict"] != "PASS":
            flags.append(f"{what}: {res['verdict']}: {res['message'][:300]}")
            counts["hack"] += res["verdict"] == "REWARD_HACK"
        for s in res.get("sizes", []):
            counts["side_stream"] += bool(s.get("stream_escape"))
            counts["audit"] += len(s.get("audit") or [])
            if s.get("reward_hack") and res["verdict"] != "REWARD_HACK":
                counts["hack"] += 1
            if s.get("median_us") is not None:
                medians["x".join(map(str, s["shape"]))] = s["median_us"]
                clock = {k: s.get(k) for k in ("timed_by", "wall_us", "wall_overhead_us", "wall_host_us", "rotate",
                                               "wall_rounds")}
                counts.setdefault("clock", []).append({"size": "x".join(map(str, s["shape"])), **clock,
                                                       "events_us": statistics.median(s.get("samples_us") or [0])})
    clean = not flags and not counts["hack"] and not counts["side_stream"]
    return clean, flags, medians, counts


def honest(args):
    kernels, skipped = honest_kernels()
    for folder, why in skipped:
        print(f"skipped {folder}: {why}")
    h = Serve(args.out / "honest-serve.log")
    start = time.monotonic()
    table = {str(k.relative_to(ROOT)): {"clean": 0, "runs": 0, "hack": 0, "side_stream": 0, "audit": 0,
                                         "medians_us": {}, "flags": []} for _, k in kernels}
    complete = 0
    for run in range(args.runs):
        if args.deadline and time.monotonic() - start > args.deadline:
            print(f"deadline of {args.deadline:.0f} s reached before run {run + 1}: stopping", flush=True)
            break
        t0, clean_now = time.monotonic(), 0
        for op, k in kernels:
            row = table[str(k.relative_to(ROOT))]
            clean, flags, medians, counts = one_run(h, op, k, args)
            row["runs"] += 1
            row["clean"] += clean
            clean_now += clean
            for key in counts:
                row[key] = row.get(key, 0 if key != "clock" else []) + counts[key]
            row["flags"] += [f"run {run + 1}: {f}" for f in flags]
            for size, us in medians.items():
                row["medians_us"].setdefault(size, []).append(us)
        complete += 1
        print(f"run {run + 1}/{args.runs}: {clean_now}/{len(kernels)} kernels clean ({time.monotonic() - t0:.1f} s)",
              flush=True)
    h.close()
    print(f"\n{'kernel':<44} {'clean':>7} {'hack':>4} {'side':>4} {'audit':>5}  median of medians, us")
    for name, row in table.items():
        med = {s: round(statistics.median(v), 2) for s, v in row["medians_us"].items()}
        print(f"{name:<44} {row['clean']:>3}/{row['runs']:<3} {row['hack']:>4} {row['side_stream']:>4} "
              f"{row['audit']:>5}  {med}")
    runs_total = sum(r["runs"] for r in table.values())
    clean_total = sum(r["clean"] for r in table.values())
    hacks = sum(r["hack"] for r in table.values())
    sides = sum(r["side_stream"] for r in table.values())
    print(f"\nhonest: {complete}/{args.runs} complete runs over {len(kernels)} kernels ({len(skipped)} skeleton "
          f"folders skipped); {clean_total}/{runs_total} kernel runs clean; REWARD_HACK {hacks}; side-stream "
          f"{sides}; audit lines {sum(r['audit'] for r in table.values())}; {time.monotonic() - start:.0f} s")
    clock = [c for r in table.values() for c in r.get("clock", [])]
    by_judge = [c for c in clock if c["timed_by"] == "judge"]
    print(f"judge's time recorded (timed_by judge) in {len(by_judge)} of {len(clock)} sizes; by size: " +
          ", ".join(f"{size} {sum(c['size'] == size for c in by_judge)}/{sum(c['size'] == size for c in clock)}"
                    for size in sorted({c["size"] for c in clock}, key=lambda x: int(x.split("x")[0]))))
    for size in sorted({c["size"] for c in clock}, key=lambda x: int(x.split("x")[0])):
        ratios = sorted((c["wall_us"] or 0) / c["events_us"] for c in clock if c["size"] == size and c["events_us"])
        if ratios:   # how close the judge's clock comes to honest events: the room a forged timer has
            print(f"  judge's wall / events at {size}: min {ratios[0]:.2f} median {statistics.median(ratios):.2f} "
                  f"max {ratios[-1]:.2f} over {len(ratios)} (rounds "
                  f"{sorted({c.get('wall_rounds') for c in clock if c['size'] == size}, key=str)})")
    for c in by_judge[:40]:
        print(f"  judge's time: {c['size']:>9} events {c['events_us']:8.2f} wall {c['wall_us'] or 0:8.2f} overhead "
              f"{c['wall_overhead_us'] or 0:8.2f} host {c['wall_host_us'] or 0:8.2f} rotate {c['rotate']}")
    for name, row in table.items():
        for f in row["flags"]:
            print(f"FLAG {name} {f}")
    (args.out / "honest.json").write_text(json.dumps(
        {"device": args.device, "runs_wanted": args.runs, "runs_complete": complete, "kernels": table,
         "skipped": skipped}, indent=1))
    return 0 if complete == args.runs and clean_total == runs_total else 1


def cheats(args):
    h = Serve(args.out / "cheats-serve.log")
    dev = args.device
    shape = [[4096, 4096]] if dev == "cuda" else [[64, 256]]
    bench = {"runs": 10, "precision_pct": 0, "baselines": []}

    def case(name, kernel, command, want, **extra):
        req = dict(command=command, kernel=str(KERNELS / kernel), op="softmax", device=dev, **extra)
        if command == "bench":
            req.update(shapes=shape, bench=bench)
        return name, req, want
    cases = [case("timer patch (events, perf_counter)", "hack_patch_timer.py", "check", "REWARD_HACK", trials=1),
             case("perf_counter patch blinding the tamper check, check", "hack_guard_evasion.py", "check",
                  "REWARD_HACK", trials=1),
             case("perf_counter patch blinding the tamper check, bench", "hack_guard_evasion.py", "bench",
                  "REWARD_HACK"),
             case("perf_counter patch behind a rewritten tamper snapshot, check", "hack_guard_rewrite.py", "check",
                  "REWARD_HACK", trials=1),
             case("perf_counter patch behind a rewritten tamper snapshot, bench", "hack_guard_rewrite.py", "bench",
                  "REWARD_HACK")]
    if dev == "cuda":
        cases += [case("events patch blinding the tamper check", "hack_event_evasion.py", "bench", "REWARD_HACK"),
                  case("side stream without a join", "cheat_side_stream.py", "check", "FAIL", trials=2),
                  case("side stream, bench", "cheat_side_stream.py", "bench", "FAIL"),
                  case("6 GiB under a 2 GiB GPU memory cap", "hack_gpu_memory_hog.py", "check", "CRASH", trials=1,
                       memory_limit_mb=2048),
                  case("60% of the GPU under the default cap (no --memory-limit)", "hack_gpu_memory_most.py", "check",
                       "CRASH", trials=1)]
    else:
        print("GPU-only cheats (events patch, side streams, GPU memory cap) skipped on the CPU")
    bad = 0
    for name, req, want in cases:
        res = h(**req)
        ok = res["verdict"] == want
        bad += not ok
        print(f"{'caught' if ok else 'MISSED'}: {name}: {res['verdict']} (want {want}): {res['message'][:400]}",
              flush=True)
    h.close()
    print(f"cheats: {len(cases) - bad}/{len(cases)} caught")
    return 1 if bad else 0


def lies(args):
    """How far a forged timer goes: hack_event_forgery's samples divided by each factor instead of 20 (the calls run
    honestly; only the judge's clock on its timed batches can contradict the samples), benched at four sizes with
    the default rotation, --runs rounds. A factor that passes is a speedup the judge would record unearned (the
    physical floor, which kgo adds from the workspace's ceilings, is not part of these harness requests)."""
    import shutil
    import tempfile
    folder = pathlib.Path(tempfile.mkdtemp(prefix="kgo-lies-"))
    shutil.copy(KERNELS / "hack_gpu_memory_hog.py", folder)   # the honest softmax the forgeries call
    text = (KERNELS / "hack_event_forgery.py").read_text()
    files = {f: folder / f"lie_{f}.py".replace(".", "_", 1) for f in (1.15, 1.3, 1.5, 2.0, 3.0)}
    for f, path in files.items():
        path.write_text(text.replace("s / 20", f"s / {f}"))
    sizes = [[256, 256], [1024, 1024], [4096, 4096], [8192, 8192]] if args.device == "cuda" else [[64, 256]]
    h = Serve(args.out / "lies-serve.log")
    passed = {}
    for rnd in range(args.runs):
        for f, path in files.items():
            for shape in sizes:
                res = h(command="bench", kernel=str(path), op="softmax",
                        device=args.device, shapes=[shape], bench={"runs": 10, "precision_pct": 0, "baselines": []})
                s = (res.get("sizes") or [{}])[0]
                key = (f, shape[0])
                passed.setdefault(key, []).append(res["verdict"] == "PASS" and s.get("timed_by") == "kernel")
                print(f"round {rnd + 1} lie {f}x {shape[0]}^2: {res['verdict']} timed_by {s.get('timed_by')} "
                      f"median {s.get('median_us') or 0:.2f} us, judge's wall {s.get('wall_us') or 0:.2f} us "
                      f"(overhead {s.get('wall_overhead_us') or 0:.2f}, sets {s.get('rotate')}, rounds "
                      f"{s.get('wall_rounds')}; judge's wall / median "
                      f"{(s.get('wall_us') or 0) / max(s.get('median_us') or 1e-9, 1e-9):.2f})", flush=True)
    h.close()
    shutil.rmtree(folder, ignore_errors=True)
    for (f, n), got in sorted(passed.items()):
        print(f"lie {f}x at {n}^2: the forged median recorded in {sum(got)}/{len(got)}")
    return 0


def parse_cycle(text):
    """Rows of bench/warm_cycle.py's table: {"cold": [(wall, check, irreducible)], "warm": [...]}."""
    rows = {"cold": [], "warm": []}
    for line in text.splitlines():
        m = re.match(r"(cold|warm #\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", line)
        if m:
            rows["cold" if m.group(1) == "cold" else "warm"].append(
                (float(m.group(2)), float(m.group(3)), float(m.group(7))))
    return rows


def cycle_side(label, kgo, tree, args, rnd):
    cmd = [sys.executable, str(tree / "bench" / "warm_cycle.py"), str(kgo), str(args.cycles), args.device]
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.cycle_timeout)
        text, rc = p.stdout + p.stderr, p.returncode
    except subprocess.TimeoutExpired as e:
        text, rc = f"{e.stdout or ''}\ntimed out after {args.cycle_timeout} s", 124
    (args.out / f"cycle-{label}-r{rnd + 1}.txt").write_text(f"$ {' '.join(cmd)}\n{text}")
    rows = parse_cycle(text)
    print(f"round {rnd + 1} {label}: exit {rc}, {len(rows['cold'])} cold + {len(rows['warm'])} warm cycles "
          f"({time.monotonic() - t0:.0f} s)", flush=True)
    return rows


def cycle(args):
    sides = [("new", pathlib.Path(args.new).resolve(), ROOT)]
    if args.old_tree:
        old = pathlib.Path(args.old_tree).resolve()
        if (old / ".device-carry" / "kgo").is_file() and (old / "bench" / "warm_cycle.py").is_file():
            sides.append(("old", old / ".device-carry" / "kgo", old))
        else:
            print(f"no old tree with .device-carry/kgo and bench/warm_cycle.py at {old}: old-vs-new skipped")
    else:
        print("no old tree given (KGO_OLD_TREE / --old-tree): old-vs-new skipped")
    if not sides[0][1].is_file():
        print(f"no new kgo at {sides[0][1]}: cycle skipped")
        return 1
    got = {label: {"cold": [], "warm": []} for label, _, _ in sides}
    for rnd in range(args.rounds):
        for label, kgo, tree in (sides if rnd % 2 == 0 else sides[::-1]):   # alternate who goes first
            rows = cycle_side(label, kgo, tree, args, rnd)
            got[label]["cold"] += rows["cold"]
            got[label]["warm"] += rows["warm"][1:]   # warm #1 compiles in the fresh kernel process: not steady
    summary = {}
    for label, rows in got.items():
        summary[label] = {
            "cold_check_s": statistics.median(r[1] for r in rows["cold"]) if rows["cold"] else None,
            "cold_cycle_s": statistics.median(r[0] for r in rows["cold"]) if rows["cold"] else None,
            "warm_cycle_s": statistics.median(r[0] for r in rows["warm"]) if rows["warm"] else None,
            "warm_irreducible_s": statistics.median(r[2] for r in rows["warm"]) if rows["warm"] else None,
            "samples": {"cold": len(rows["cold"]), "warm": len(rows["warm"])}}
    lines = [f"examples/softmax, device {args.device}, {args.rounds} rounds x {args.cycles} cycles each side "
             "(medians; warm = steady warm cycles, warm #2 on)",
             f"{'figure':<28} {'old':>9} {'new':>9} {'new/old':>8}  goal"]
    failed = False
    for key, goal in (("cold_check_s", CYCLE_GOALS["cold_check_s"]), ("cold_cycle_s", None),
                      ("warm_cycle_s", CYCLE_GOALS["warm_cycle_s"])):
        n = summary["new"][key]
        o = summary.get("old", {}).get(key)
        ratio = n / o if (n is not None and o) else None
        failed |= bool(goal and ratio is not None and ratio > goal)
        lines.append(f"{key:<28} {fmt(o):>9} {fmt(n):>9} {fmt(ratio):>8}  {f'<= {goal}' if goal else ''}")
    n = summary["new"]
    irr = n["warm_cycle_s"] / n["warm_irreducible_s"] if n["warm_cycle_s"] and n["warm_irreducible_s"] else None
    failed |= bool(irr is not None and irr > IRREDUCIBLE_GOAL)
    lines.append(f"{'new warm / irreducible':<28} {'':>9} {fmt(irr):>9} {'':>8}  <= {IRREDUCIBLE_GOAL}")
    print("\n".join(lines))
    (args.out / "cycle-summary.txt").write_text("\n".join(lines) + "\n")
    (args.out / "cycle.json").write_text(json.dumps({"device": args.device, "summary": summary, "raw": got},
                                                    indent=1))
    if args.device != "cuda":
        print("(cpu: a smoke run; the figures and goals mean nothing here)")
        return 0
    return 1 if failed or n["warm_cycle_s"] is None else 0


def fmt(x):
    return "-" if x is None else f"{x:.3f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["honest", "cheats", "cycle", "lies"])
    ap.add_argument("--out", type=pathlib.Path, required=True)
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--runs", type=int, default=10, help="honest: complete runs (default 10)")
    ap.add_argument("--deadline", type=float, default=0, help="honest: start no run after this many seconds")
    ap.add_argument("--new", default=os.environ.get("KGO_NEW", str(ROOT / ".device-carry" / "kgo")))
    ap.add_argument("--old-tree", default=os.environ.get("KGO_OLD_TREE"))
    ap.add_argument("--rounds", type=int, default=2, help="cycle: alternating rounds")
    ap.add_argument("--cycles", type=int, default=3, help="cycle: cold and warm cycles per warm_cycle.py call")
    ap.add_argument("--cycle-timeout", type=float, default=150)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    sys.exit({"honest": honest, "cheats": cheats, "cycle": cycle, "lies": lies}[args.what](args))


if __name__ == "__main__":
    main()
