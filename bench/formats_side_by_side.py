#!/usr/bin/env python3
"""Side by side with the formats' own harnesses (issue 30), on a GPU machine with no internet: each format's own
check and `kgo check` on the same kernels, their verdicts and times, and where they disagree.

  formats_side_by_side.py [--kernelbench DIR] [--kb-pairs DIR] [--fmh66 DIR] [--limit N] [--out DIR]

--kernelbench DIR: a KernelBench checkout (its src/kernelbench/eval.py and KernelBench/level1/*.py). Every level-1
  problem is judged by `eval_kernel_against_ref` (5 correctness trials, the default precision) and by kgo, with
  an honest ModelNew: the problem's own Model under that name (`class ModelNew(Model)`).
--kb-pairs DIR: leaderboard kernels as `<problem file stem>__<anything>.py` (a ModelNew, e.g. compiled with
  load_inline), each judged against the level-1 problem its name starts with.
--fmh66 DIR: a kernel-opt-skill or kernel-opt-agent checkout: every demo/cuda/<op>/v*/v*.cu with its ref.py is
  judged by the repository's own correctness_check.py (its dims from the demo's setup() defaults or --dim-style
  flags in its correctness.md) and by kgo.
Writes <out>/side_by_side.json and <out>/summary.md (command, machine, date, agreement, per-problem times, every
disagreement with both messages). Without a GPU it says so and exits 0."""
import argparse
import datetime
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
KGO = os.environ.get("KGO_BIN", str(ROOT / "build" / "cli" / "kgo"))

KB_DRIVER = r"""
import importlib, json, pathlib, sys, time, types
src = pathlib.Path(sys.argv[1])
import torch
# Load eval.py without kernelbench/__init__ (its LLM clients are not needed offline); stub what is missing.
for name, attrs in {"requests": {}, "dotenv": {"load_dotenv": lambda *a, **k: False},
                    "tqdm": {"tqdm": lambda it=None, *a, **k: it}, "openai": {"OpenAI": object},
                    "litellm": {"completion": None}, "pydantic": None}.items():
    if attrs is None:
        continue
    try:
        importlib.import_module(name)
    except ImportError:
        sys.modules[name] = types.ModuleType(name); sys.modules[name].__dict__.update(attrs)
if (src / "kernelbench" / "eval.py").is_file():
    pkg = types.ModuleType("kernelbench"); pkg.__path__ = [str(src / "kernelbench")]; sys.modules["kernelbench"] = pkg
    from kernelbench.eval import eval_kernel_against_ref
else:
    sys.path.insert(0, str(src.parent)); from src.eval import eval_kernel_against_ref
for line in sys.stdin:
    ref, new = json.loads(line)
    t = time.perf_counter()
    try:
        r = eval_kernel_against_ref(open(ref).read(), open(new).read(), num_correct_trials=5,
                                    measure_performance=False, device=torch.device("cuda:0"))
        out = {"compiled": bool(r.compiled), "correct": bool(r.correctness),
               "metadata": {k: str(v)[:300] for k, v in (r.metadata or {}).items()}}
    except Exception as e:
        out = {"compiled": False, "correct": False, "metadata": {"exception": f"{type(e).__name__}: {e}"[:300]}}
    out["seconds"] = time.perf_counter() - t
    print(json.dumps(out), flush=True)
"""

HONEST = "\n\nclass ModelNew(Model):  # the reference itself: an honest ModelNew (kgo flags it as delegation)\n    pass\n"


def kgo_check(name, kernel, reference, work, extra=()):
    """`kgo init` + `kgo check --json` in a fresh workspace: (verdict, every case passed, message, seconds of the
    check). The case statuses are the correctness verdict the formats' own harnesses give; the verdict adds kgo's
    run-wide checks (delegation, determinism, streams, unchanged inputs)."""
    ws_parent = work / "ws"
    ws_parent.mkdir(exist_ok=True)
    env = dict(os.environ, KGO_HARNESS_DAEMON="0", KGO_DATA_DIR=str(ROOT))
    args = [KGO, "init", name, str(kernel), "--platform", "H200", "--dir", str(ws_parent), "--force"]
    if reference:
        args += ["--reference", str(reference)]
    p = subprocess.run(args + list(extra), capture_output=True, text=True, env=env, timeout=600)
    if p.returncode != 0:
        return "INIT_FAILED", False, p.stderr.strip()[-400:], 0.0
    ws = ws_parent / f"kernel_opt_{name}"
    t = time.perf_counter()
    p = subprocess.run([KGO, "check", "--workspace", str(ws), "--json", "--detail"], capture_output=True, text=True,
                       env=env, timeout=1800)
    seconds = time.perf_counter() - t
    try:
        j = json.loads(p.stdout)
    except ValueError:
        return "NO_JSON", False, (p.stderr or p.stdout).strip()[-400:], seconds
    cases = (j.get("harness") or {}).get("cases") or []
    correct = bool(cases) and all(c.get("status") in ("PASS", "SKIPPED") for c in cases)
    return j.get("verdict"), correct, j.get("message", ""), seconds


def kernelbench(args, work, rows):
    src = pathlib.Path(args.kernelbench) / "src"
    level1 = sorted((pathlib.Path(args.kernelbench) / "KernelBench" / "level1").glob("*.py"))[:args.limit or None]
    pairs = []
    for problem in level1:
        honest = work / "kb" / f"{problem.stem}__honest.py"
        honest.parent.mkdir(parents=True, exist_ok=True)
        honest.write_text(problem.read_text() + HONEST)
        pairs.append((problem, honest, "honest ModelNew(Model)"))
    if args.kb_pairs:
        by_stem = {p.stem: p for p in level1}
        for kernel in sorted(pathlib.Path(args.kb_pairs).glob("*.py")):
            problem = by_stem.get(kernel.stem.split("__")[0])
            if problem:
                pairs.append((problem, kernel, "leaderboard kernel"))
    driver = subprocess.Popen([sys.executable, "-c", KB_DRIVER, str(src)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, cwd=str(work / "kb"))
    for problem, kernel, what in pairs:
        driver.stdin.write(json.dumps([str(problem), str(kernel)]) + "\n")
        driver.stdin.flush()
        own = json.loads(driver.stdout.readline())
        verdict, correct, message, secs = kgo_check(re.sub(r"\W", "_", kernel.stem)[:40], kernel, problem, work)
        rows.append({"format": "kernelbench", "problem": problem.name, "kernel": kernel.name, "what": what,
                     "own_pass": own["correct"], "own_seconds": own["seconds"], "own_detail": own["metadata"],
                     "kgo_verdict": verdict, "kgo_pass": correct, "kgo_seconds": secs,
                     "kgo_message": message})
        print(json.dumps(rows[-1])[:300], flush=True)
    driver.stdin.close()
    driver.wait(timeout=60)


def fmh66(args, work, rows):
    repo = pathlib.Path(args.fmh66)
    checker = next(iter(repo.glob("skills/*/profiling/script/correctness_check.py")), None)
    for ref in sorted(repo.glob("demo/cuda/*/ref.py")) + sorted(repo.glob("demo/*/ref.py")):
        for cu in sorted(ref.parent.glob("v*/v*.cu")):
            dims = _fmh66_dims(ref, cu)
            own_pass, own_msg, own_s = None, "no correctness_check.py in the checkout", 0.0
            if checker:
                so = cu.with_suffix(".so")
                subprocess.run(["nvcc", "-shared", "-std=c++17", "-O3", "-Xcompiler", "-fPIC", "-o", str(so),
                                str(cu)], capture_output=True, timeout=600)
                t = time.perf_counter()
                p = subprocess.run([sys.executable, str(checker), str(cu), f"--ref={ref}", "--output-dir",
                                    str(work / "fmh66" / cu.stem)] + [f"--{k}={v}" for k, v in dims.items()],
                                   capture_output=True, text=True, timeout=900)
                own_s = time.perf_counter() - t
                own_pass, own_msg = p.returncode == 0, (p.stdout + p.stderr).strip()[-300:]
            extra = ["--shape", "x".join(str(v) for v in dims.values())] if dims else []
            verdict, correct, message, secs = kgo_check(f"{ref.parent.name}_{cu.stem}", cu, ref, work, extra)
            rows.append({"format": "fmh66", "problem": ref.parent.name, "kernel": cu.name, "what": "published demo",
                         "own_pass": own_pass, "own_seconds": own_s, "own_detail": own_msg, "kgo_verdict": verdict,
                         "kgo_pass": correct, "kgo_seconds": secs, "kgo_message": message})
            print(json.dumps(rows[-1])[:300], flush=True)


def _fmh66_dims(ref, cu):
    """The integer parameters of solve() in order, valued from ref.py's setup() defaults, else from the
    'Dims' line of the demo's correctness.md (what its author ran)."""
    sys.path.insert(0, str(ROOT / "tools"))
    from kgo_harness.formats import cuda_contract, formats
    ints = [p.name for p in cuda_contract.parse_params(cu.read_text()) if not p.pointer and not p.is_float_scalar]
    decl = formats.setup_declaration(ref.read_text()) or {"dims": []}
    values = dict(decl["dims"])
    md = cu.parent / "correctness.md"
    if md.is_file():
        m = re.search(r"\*\*Dims\*\*\s*\|\s*(\{[^}]*\})", md.read_text())
        if m:
            values.update({k: int(v) for k, v in re.findall(r"'(\w+)':\s*(\d+)", m.group(1))})
    return {n: values[n] for n in ints if n in values}


def summarize(rows, out, argv):
    judged = [r for r in rows if r["own_pass"] is not None]
    agree = [r for r in judged if r["own_pass"] == r["kgo_pass"]]
    lines = [f"# Formats side by side ({datetime.date.today()})", "",
             f"Command: `{' '.join(argv)}`", f"Machine: {_gpu()}", "",
             f"Correctness verdicts agree on {len(agree)}/{len(judged)} "
             f"({100 * len(agree) / max(len(judged), 1):.1f}%) (kgo: every case PASS; its run-wide checks are "
             f"reported apart: {sum(r['kgo_pass'] and r['kgo_verdict'] != 'PASS' for r in judged)} kernels "
             "correct but flagged, e.g. the reference itself as delegation).", ""]
    for fmt in sorted({r["format"] for r in rows}):
        sub = [r for r in judged if r["format"] == fmt]
        if sub:
            ratio = sorted(r["kgo_seconds"] / r["own_seconds"] for r in sub if r["own_seconds"] > 0)
            med = ratio[len(ratio) // 2] if ratio else float("nan")
            lines.append(f"- {fmt}: {sum(r['own_pass'] == r['kgo_pass'] for r in sub)}/{len(sub)} agree; kgo time "
                         f"/ own time per problem: median {med:.2f}x, max {max(ratio, default=float('nan')):.2f}x")
    lines += ["", "## Disagreements", "", "| format | problem | kernel | own | kgo | kgo message | own detail |",
              "|---|---|---|---|---|---|---|"]
    for r in judged:
        if r["own_pass"] != r["kgo_pass"]:
            lines.append(f"| {r['format']} | {r['problem']} | {r['kernel']} | {'pass' if r['own_pass'] else 'fail'} "
                         f"| {r['kgo_verdict']} | {str(r['kgo_message'])[:160]} | {str(r['own_detail'])[:160]} |")
    out.mkdir(parents=True, exist_ok=True)
    (out / "side_by_side.json").write_text(json.dumps(rows, indent=1) + "\n")
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def _gpu():
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=30).stdout.strip()
    except OSError:
        return "no nvidia-smi"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernelbench")
    ap.add_argument("--kb-pairs")
    ap.add_argument("--fmh66")
    ap.add_argument("--limit", type=int, default=0, help="at most N level-1 problems (0: all)")
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/kgo-formats-side-by-side"))
    args = ap.parse_args()
    if shutil.which("nvidia-smi") is None:
        print("no GPU here: the formats' own harnesses need one; nothing was run")
        return 0
    rows = []
    with tempfile.TemporaryDirectory(prefix="kgo-sbs-") as tmp:
        work = pathlib.Path(tmp)
        if args.kernelbench:
            kernelbench(args, work, rows)
        if args.fmh66:
            fmh66(args, work, rows)
    summarize(rows, pathlib.Path(args.out), sys.argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
