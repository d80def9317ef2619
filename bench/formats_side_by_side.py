#!/usr/bin/env python3
"""Side by side with the formats' own harnesses (issue 30): each format's own check and `kgo check` on the same
kernels, their verdicts and times, and where they disagree. Offline; one device call per shard.

  formats_side_by_side.py [--parts kernelbench,fmh66,sol-execbench,tritonbench,examples] [--device cuda|cpu]
                          [--shard K/N | --offset I --limit N] [--stride K] [--budget S] [--out DIR] [--list]
                          [--repeat N] [--jobs I,J,...] [--own-cold]
  formats_side_by_side.py --merge DIR_OR_JSON... [--out DIR]
On the GPU machine, one call per shard: OUT=$OUT bench/h200_phases.sh sbs:1/3:550 (bench/README.md).

Inputs (default: the git-excluded folders under bench/, see bench/README.md):
--kernelbench DIR  a KernelBench checkout or archive, either layout it has had (src/eval.py, package `src`; or
  src/kernelbench/eval.py, package `kernelbench`). Every level-1 problem is judged by its own
  `eval_kernel_against_ref` (5 correctness trials, default precision) and by kgo with an honest ModelNew (the
  problem's Model under that name), plus bench/formats/kb_*_model_new.py and --kb-pairs DIR's leaderboard
  kernels (`<problem stem>__<anything>.py`).
--fmh66 DIR  kernel-opt-skill or kernel-opt-agent: every demo/{cuda,triton}/<op>/v*/v* with its ref.py, by the
  repository's own correctness_check.py (dims and tolerance from the demo's correctness.md, as its author ran it,
  else setup() defaults; a CUDA kernel's .so compiled first with the command the checker prints) and by kgo.
--sol-execbench DIR, --tritonbench DIR: see bench/formats_own.py.
--parts examples: kgo check + bench on examples/formats/ (kgo's own examples, no other harness).
--device cpu: KernelBench's, fmh66's and SOL-ExecBench's harnesses need CUDA, so they are only loaded and their
  kernels discovered; tritonbench's runs (Triton's interpreter); kgo checks with --device cpu, KernelBench's dims
  capped at --cpu-dim-cap (32), SOL-ExecBench's two smallest workloads only.
--repeat N: the selection N times over, each time a fresh workspace (issue 29's honest runs: `--parts examples
  --repeat 10` is ten check + bench runs of every format; the summary counts the clean runs per format).
--own-cold: KernelBench's eval in a fresh process for every problem, as its single-problem scripts run it: the row
  adds own_process_seconds (its start, torch import and CUDA context included) beside own_seconds (the eval alone).
--budget S: no job starts once S seconds would be passed; the JSON records next_offset.
Writes <out>/side_by_side-<offset>.json (rewritten after every job, so a killed call keeps what it measured) and
<out>/summary.md; --merge reads such files and writes one summary.md and side_by_side.json."""
import argparse
import datetime
import json
import math
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

import formats_own as own

ROOT = own.ROOT
BENCH = ROOT / "bench"
HONEST = ("\n\nclass ModelNew(Model):  # the reference itself: an honest ModelNew (kgo flags it as delegation)\n"
          "    pass\n")
EX = ROOT / "examples" / "formats"
# kgo's own example per format (no other harness judges them): kernel file, reference, kgo init flags.
EXAMPLES = {"fmh66": ("kernel.py", "ref.py", []), "kernelbench": ("model_new.py", "problem.py", []),
            "sol-execbench": ("kernel.py", "definition.json", []), "tritonbench": ("operator.py", None, []),
            "fmh66-cuda": ("kernel.cu", "ref.py", []), "kernelbench-fixed": ("model_new.py", "problem.py", []),
            "opus24": ("kernel/triton_rowscale_kernel_v1.py", None, []),
            "sol-execbench-solution": ("solution.json", "definition.json", []),
            "cuda-solve": ("kernel.cu", "ref.py", ["--inputs", "A,B", "--outputs", "C", "--size", "A=M*K", "--size",
                                                   "B=K*N", "--size", "C=M*N", "--shape", "1024x1024x1024"])}
OWN_PAIRS = {"kb_softmax_model_new.py": "23_Softmax.py", "kb_maxpool2d_model_new.py": "42_Max_Pooling_2D.py"}


def kgo_bin():
    for k in (os.environ.get("KGO_BIN"), ROOT / "build" / "cli" / "kgo", ROOT / ".device-carry" / "kgo"):
        if k and pathlib.Path(k).is_file():
            return str(k)
    sys.exit("no kgo: build it (build/cli/kgo), carry .device-carry/ (scripts/device-pack.sh) or set KGO_BIN")


def kgo_check(job, work, device, timeout):
    """`kgo init` + `kgo check --json --detail` in a fresh workspace: (verdict, every case passed, message,
    seconds of the check, tolerance). The case statuses are the correctness verdict the formats' own harnesses
    give; the verdict adds kgo's run-wide checks (delegation, determinism, streams, unchanged inputs)."""
    name = re.sub(r"\W", "_", f"{job['format']}_{job['kernel']}")[:48]
    env = dict(os.environ, KGO_DATA_DIR=str(ROOT), XDG_RUNTIME_DIR=str(work / "rt"))
    (work / "rt").mkdir(mode=0o700, exist_ok=True)
    (work / "ws").mkdir(exist_ok=True)
    args = [kgo_bin(), "init", name, job["kernel_path"], "--platform", "H200", "--dir", str(work / "ws"), "--force"]
    args += ["--reference", job["ref_path"]] if job.get("ref_path") else []
    p = subprocess.run(args + job.get("kgo_init", []), capture_output=True, text=True, env=env, timeout=120)
    if p.returncode != 0:
        return {"kgo_verdict": "INIT_FAILED", "kgo_pass": False, "kgo_message": p.stderr.strip()[-400:],
                "kgo_seconds": 0.0}
    t = time.perf_counter()
    cmd = [kgo_bin(), "check", "--workspace", str(work / "ws" / f"kernel_opt_{name}"), "--json", "--detail",
           "--device", device] + job.get("kgo_check", [])
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
        out, err = p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        out, err = "", f"kgo check ran past this job's {timeout:.0f} s: {(e.stderr or b'')[-200:]!r}"
    seconds = time.perf_counter() - t
    try:
        j = json.loads(out)
    except ValueError:
        return {"kgo_verdict": "NO_JSON", "kgo_pass": False, "kgo_message": (err or out).strip()[-400:],
                "kgo_seconds": seconds}
    if "error" in j:  # kgo refused before judging (a usage or environment error, with its exit code)
        return {"kgo_verdict": f"ERROR {j.get('exit_code')}", "kgo_pass": False, "kgo_message": j["error"][:400],
                "kgo_seconds": seconds}
    cases = (j.get("harness") or {}).get("cases") or []
    tol = (j.get("harness") or {}).get("tolerance") or j.get("tolerance")
    bench = {}
    if job.get("bench"):
        b = subprocess.run(cmd[:1] + ["bench"] + cmd[2:4] + ["--json", "--quiet", "--device", device], env=env,
                           capture_output=True, text=True, timeout=timeout)
        try:
            bj = json.loads(b.stdout)
        except ValueError:
            bj = {"verdict": "NO_JSON", "message": (b.stderr or b.stdout)[-300:]}
        first = ((bj.get("harness") or bj).get("sizes") or [{}])[0]
        bench = {"bench_verdict": bj.get("verdict"), "bench_median_us": first.get("median_us"),
                 "bench_vs_eager": first.get("speedup_vs_eager"), "bench_message": str(bj.get("message", ""))[:200]}
    h = j.get("harness") or {}
    timing = {k: round(v, 3) for k, v in (h.get("timing") or {}).items() if isinstance(v, (int, float))}
    return {**bench, "kgo_verdict": j.get("verdict"), "kgo_message": str(j.get("message", ""))[:400],
            "kgo_seconds": seconds, "kgo_timing": timing, "kgo_judge_warm": (h.get("worker") or {}).get("warm"),
            "kgo_cell_warm": (h.get("kernel_process") or {}).get("warm"),
            "kgo_pass": bool(cases) and all(c.get("status") in ("PASS", "SKIPPED") for c in cases),
            "kgo_cases": len(cases), "kgo_tolerance": tol}


def kernelbench_jobs(args, work):
    root = pathlib.Path(args.kernelbench)
    level1 = sorted((root / "KernelBench" / "level1").glob("*.py"), key=lambda p: (len(p.stem.split("_")[0]), p.name))
    jobs = []
    for problem in level1:
        honest = work / "kb" / f"{problem.stem}__honest.py"
        honest.parent.mkdir(parents=True, exist_ok=True)
        honest.write_text(problem.read_text() + HONEST)
        jobs.append(dict(format="kernelbench", problem=problem.name, kernel=honest.name, what="honest ModelNew(Model)",
                         kernel_path=str(honest), ref_path=str(problem), kgo_check=_cpu_dims(args, problem)))
    by_name = {p.name: p for p in level1}
    pairs = [(k, by_name.get(v)) for k, v in ((BENCH / "formats" / k, v) for k, v in OWN_PAIRS.items())]
    if args.kb_pairs:
        by_stem = {p.stem: p for p in level1}
        # The longest problem stem the name starts with before "__" (a stem may end in "_": 26_GELU_).
        pairs += [(k, max((p for stem, p in by_stem.items() if k.stem.startswith(stem + "__")),
                          key=lambda p: len(p.stem), default=None))
                  for k in sorted(pathlib.Path(args.kb_pairs).glob("*.py"))]
    for kernel, problem in pairs:
        if problem:
            jobs.append(dict(format="kernelbench", problem=problem.name, kernel=kernel.name, what="Triton ModelNew",
                             kernel_path=str(kernel), ref_path=str(problem), kgo_check=_cpu_dims(args, problem)))
    return jobs


def _cpu_dims(args, problem):
    """On the CPU, the problem's module-level integer dims above --cpu-dim-cap are capped (kgo's --dim), so the plumbing
    runs in seconds; on a GPU the problem runs at its own sizes."""
    if args.device != "cpu":
        return []
    dims = re.findall(r"^(\w+)\s*=\s*(\d+(?:\s*\*\s*\d+)*)\s*(?:#.*)?$", problem.read_text(), re.M)
    values = {n: math.prod(int(x) for x in v.split("*")) for n, v in dims}
    return [f"--dim={n}={args.cpu_dim_cap}" for n, v in values.items() if v > args.cpu_dim_cap]


def fmh66_jobs(args, work):
    repo = pathlib.Path(args.fmh66)
    jobs = []
    for ref in sorted(repo.glob("demo/*/*/ref.py")):
        for kernel in sorted(ref.parent.glob("v*/v*.cu")) + sorted(ref.parent.glob("v*/v*.py")):
            dims = own.fmh66_dims(ref, kernel)
            jobs.append(dict(format="fmh66", problem=f"{ref.parent.parent.name}/{ref.parent.name}",
                             kernel=f"{ref.parent.name}_{kernel.name}", what="published demo",
                             kernel_path=str(kernel), ref_path=str(ref), dims=dims,
                             kgo_init=[f"--dim={k}={v}" for k, v in dims.items()]))
    return jobs


def examples_jobs(args, work):
    return [dict(format="examples", problem=name, kernel=kernel, what="kgo's example: check + bench", bench=True,
                 kernel_path=str(EX / name / kernel), ref_path=str(EX / name / ref) if ref else None, kgo_init=flags)
            for name, (kernel, ref, flags) in EXAMPLES.items()]


def discover(args, work):
    jobs = []
    for part in args.parts.split(","):
        src = str(EX) if part == "examples" else getattr(args, part.replace("-", "_"), None)
        if not src or not pathlib.Path(src).is_dir():
            print(f"{part}: no checkout at {src!r}; skipped (see bench/README.md)", flush=True)
            continue
        made = {"examples": examples_jobs, "kernelbench": kernelbench_jobs, "fmh66": fmh66_jobs,
                "sol-execbench": own.solexec_jobs,
                "tritonbench": own.tritonbench_jobs}[part](args, work)
        print(f"{part}: {len(made)} kernels found under {src}", flush=True)
        jobs += made
    return jobs


def run_jobs(args, jobs, work, out_json):
    """Runs jobs[offset:offset+limit] while the budget allows; rewrites out_json after each one."""
    start, rows = time.perf_counter(), []
    doc = {"command": sys.argv, "machine": _machine(),
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "device": args.device, "jobs_total": len(jobs), "offset": args.offset, "rows": rows}
    servers = own.Servers(args, work)
    longest = {}
    picked = getattr(args, "picked", None) or range(args.offset, min(len(jobs), args.offset + args.limit)
                                                    if args.limit else len(jobs), args.stride)
    for i in picked:
        job = jobs[i]
        left = args.budget - (time.perf_counter() - start) if args.budget else 3600.0
        if left < 1.5 * longest.get(job["format"], 20.0):
            doc["next_offset"] = i
            print(f"budget: stopping before job {i} ({left:.0f} s left); rerun with --offset {i}", flush=True)
            break
        t = time.perf_counter()
        row = {"job": i, "rep": job.get("rep", 0), **{k: job[k] for k in ("format", "problem", "kernel", "what")}}
        row.update(servers.own_check(job, min(left, 900.0)))
        left = args.budget - (time.perf_counter() - start) if args.budget else 3600.0
        row.update(kgo_check(job, work, args.device, max(min(left, 900.0), 30.0)))
        longest[job["format"]] = max(longest.get(job["format"], 0.0), time.perf_counter() - t)
        rows.append(row)
        print(json.dumps(row)[:400], flush=True)
        out_json.write_text(json.dumps(doc, indent=1) + "\n")
    else:
        doc["next_offset"] = None
    servers.close()
    env = dict(os.environ, KGO_DATA_DIR=str(ROOT), XDG_RUNTIME_DIR=str(work / "rt"))
    subprocess.run([kgo_bin(), "harness", "stop"], capture_output=True, env=env, timeout=60)  # the warm judge
    doc["kernelbench_loader"] = servers.kb_ready
    doc["seconds"] = time.perf_counter() - start
    out_json.write_text(json.dumps(doc, indent=1) + "\n")
    return doc


def summarize(docs, out):
    rows = list({(r.get("job"), r.get("rep", 0), r["format"], r["kernel"]): r
                 for d in docs for r in d["rows"]}.values())  # a rerun wins
    judged = [r for r in rows if r.get("own_pass") is not None]
    agree = [r for r in judged if r["own_pass"] == r["kgo_pass"]]
    d0 = docs[0] if docs else {}
    lines = [f"# Formats side by side ({d0.get('date', '')[:10]})", "",
             *[f"Command: `{' '.join(d['command'])}` ({d['seconds']:.0f} s, next_offset {d.get('next_offset')})"
               for d in docs],
             f"Machine: {d0.get('machine')}; device {d0.get('device')}", "",
             f"Rows: {len(rows)} of {d0.get('jobs_total')} jobs; own harness judged {len(judged)} "
             f"(the rest: {_count(r.get('own_detail') for r in rows if r.get('own_pass') is None)}).",
             f"Correctness verdicts agree on {len(agree)}/{len(judged)} ({100 * len(agree) / max(len(judged), 1):.1f}%)"
             f" (kgo: every case PASS; {sum(r['kgo_pass'] and r['kgo_verdict'] != 'PASS' for r in rows)} kernels "
             "correct but flagged by its run-wide checks, e.g. the reference itself as delegation).", ""]
    for fmt in sorted({r["format"] for r in rows}):
        sub = [r for r in rows if r["format"] == fmt]
        both = [r for r in sub if r.get("own_pass") is not None]
        ratio = sorted(r["kgo_seconds"] / r["own_seconds"] for r in both if r.get("own_seconds"))
        kgo_s = sorted(r["kgo_seconds"] for r in sub)
        cold = sorted(r["kgo_seconds"] / r["own_process_seconds"] for r in both if r.get("own_process_seconds"))
        lines.append(f"- {fmt}: {len(sub)} kernels; {sum(r['own_pass'] == r['kgo_pass'] for r in both)}/{len(both)}"
                     f" agree; kgo verdicts {_count(r['kgo_verdict'] for r in sub)}; kgo check median "
                     f"{kgo_s[len(kgo_s) // 2]:.1f} s, max {kgo_s[-1]:.1f} s"
                     + (f"; kgo / own time median {ratio[len(ratio) // 2]:.2f}x, max {ratio[-1]:.2f}x, "
                        f"{sum(x > 1.0 for x in ratio)} above 1.0x" if ratio else "")
                     + (f"; kgo / own process (its start included) median {cold[len(cold) // 2]:.2f}x, max "
                        f"{cold[-1]:.2f}x, {sum(x > 1.0 for x in cold)} above 1.0x" if cold else ""))
    if any(r.get("rep") for r in rows):
        lines += ["", "## Repeated runs (clean: check PASS and, where benched, bench PASS)", ""]
        for kern in sorted({(r["format"], r["problem"], r["kernel"]) for r in rows}):
            sub = [r for r in rows if (r["format"], r["problem"], r["kernel"]) == kern]
            clean = sum(r["kgo_verdict"] == "PASS" and r.get("bench_verdict", "PASS") == "PASS" for r in sub)
            med = sorted(r["bench_median_us"] for r in sub if r.get("bench_median_us") is not None)
            lines.append(f"- {kern[1]} ({kern[2]}): {clean}/{len(sub)} clean; verdicts "
                         f"{_count(str(r['kgo_verdict']) + '/' + str(r.get('bench_verdict')) for r in sub)}"
                         + (f"; bench median {med[len(med) // 2]:.2f} us ({med[0]:.2f}-{med[-1]:.2f})" if med else ""))
    lines += ["", "## Disagreements and kgo failures", "",
              "| format | problem | kernel | own | kgo | kgo message | own detail |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        if (r.get("own_pass") is not None and r["own_pass"] != r["kgo_pass"]) or not r["kgo_pass"]:
            own_txt = {True: "pass", False: "fail", None: "not run"}[r.get("own_pass")]
            lines.append(f"| {r['format']} | {r['problem']} | {r['kernel']} | {own_txt} | {r['kgo_verdict']} | "
                         f"{_cell(r['kgo_message'])} | {_cell(r.get('own_detail'))} |")
    lines += ["", "## Every kernel", "",
              "| job | format | problem | kernel | own | own s | kgo verdict | kgo cases pass "
              "| kgo s | kgo / own | own process s | kgo judge/cell warm | tolerance |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ratio = f"{r['kgo_seconds'] / r['own_seconds']:.2f}" if r.get("own_pass") is not None and r.get("own_seconds") \
            else "-"
        tol = r.get("kgo_tolerance") or {}
        lines.append(f"| {r.get('job')} | {r['format']} | {r['problem']} | {r['kernel']} | {r.get('own_pass')} | "
                     f"{r.get('own_seconds') or 0:.1f} | {r['kgo_verdict']} | {r['kgo_pass']} | "
                     f"{r['kgo_seconds']:.1f} | "
                     f"{ratio} | {r.get('own_process_seconds') or 0:.1f} | {r.get('kgo_judge_warm')}/"
                     f"{r.get('kgo_cell_warm')} | {tol.get('rtol', '')}/{tol.get('atol', '')} {tol.get('source', '')} |")
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def _cell(text):
    return re.sub(r"\s+", " ", str(text or ""))[:200].replace("|", "/")


def _count(values):
    counts = {}
    for v in values:
        counts[str(v)[:60]] = counts.get(str(v)[:60], 0) + 1
    return ", ".join(f"{k} x{n}" for k, n in sorted(counts.items(), key=lambda kv: -kv[1])) or "none"


def _machine():
    try:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30).stdout.strip()
    except OSError:
        gpu = "no nvidia-smi"
    return f"{gpu}; {os.cpu_count()} CPUs; python {sys.version.split()[0]}"


def merge(paths, out):
    files = []
    for p in map(pathlib.Path, paths):
        files += sorted(p.glob("side_by_side-*.json")) if p.is_dir() else [p]
    if not files:
        sys.exit(f"--merge: no side_by_side-*.json under {paths}")
    docs = sorted((json.loads(f.read_text()) for f in files), key=lambda d: (d["date"], d["offset"]))  # reruns last
    out.mkdir(parents=True, exist_ok=True)
    (out / "side_by_side.json").write_text(json.dumps(docs, indent=1) + "\n")
    summarize(docs, out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, folder in (("kernelbench", ".kernelbench"), ("fmh66", ".fmh66"), ("sol-execbench", ".sol-execbench"),
                         ("tritonbench", ".tritonbench")):
        ap.add_argument(f"--{name}", default=str(BENCH / folder))
    ap.add_argument("--kb-pairs")
    ap.add_argument("--parts", default="kernelbench,fmh66,sol-execbench,tritonbench,examples")
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    ap.add_argument("--cpu-dim-cap", type=int, default=32, help="--device cpu: KernelBench dims capped at this")
    ap.add_argument("--shard", help="K/N: the K-th (1-based) of N equal slices of the job list")
    ap.add_argument("--offset", type=int, default=0)
    ap.add_argument("--limit", type=int, default=0, help="at most N jobs (0: all)")
    ap.add_argument("--jobs", help="I,J,...: only these job numbers of the selection (a rerun of some rows)")
    ap.add_argument("--stride", type=int, default=1, help="every K-th job of the selection (a sample)")
    ap.add_argument("--repeat", type=int, default=1, help="the selection N times over (fresh workspaces)")
    ap.add_argument("--own-cold", action="store_true",
                    help="KernelBench's eval in a fresh process per problem (own_process_seconds: its start included)")
    ap.add_argument("--budget", type=float, default=0, help="seconds; no job starts that would pass it (0: none)")
    ap.add_argument("--list", action="store_true", help="print the job list with its indices and exit")
    ap.add_argument("--merge", nargs="+", metavar="DIR_OR_JSON")
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/kgo-formats-side-by-side"))
    args = ap.parse_args()
    for name in ("kernelbench", "fmh66", "sol_execbench", "tritonbench", "kb_pairs"):  # the harnesses change cwd
        if getattr(args, name):
            setattr(args, name, str(pathlib.Path(getattr(args, name)).resolve()))
    out = pathlib.Path(args.out)
    if args.merge:
        return merge(args.merge, out)
    if args.device == "cuda" and not own.has_cuda():
        sys.exit("no CUDA device here: the formats' own harnesses need one; use --device cpu for the CPU side")
    with tempfile.TemporaryDirectory(prefix="kgo-sbs-") as tmp:
        work = pathlib.Path(tmp)
        jobs = discover(args, work)
        jobs = [dict(j, rep=r) for r in range(max(args.repeat, 1)) for j in jobs]
        if args.shard:
            k, n = map(int, args.shard.split("/"))
            size = -(-len(jobs) // n)
            args.offset, args.limit = (k - 1) * size, size
        if args.jobs:
            args.picked = sorted({int(i) for i in args.jobs.split(",")} & set(range(len(jobs))))
        if args.list:
            for i, j in enumerate(jobs):
                print(i, j["format"], j["problem"], j["kernel"], j.get("dims", ""))
            return 0
        out.mkdir(parents=True, exist_ok=True)
        name = "rerun-" + args.jobs.replace(",", "_")[:60] if args.jobs else f"{args.offset:03d}"
        doc = run_jobs(args, jobs, work, out / f"side_by_side-{name}.json")
    summarize([doc], out)
    print(f"next_offset: {doc['next_offset']} (of {len(jobs)} jobs; None: this selection is done)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
