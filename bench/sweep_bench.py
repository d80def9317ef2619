#!/usr/bin/env python3
"""Benchmark: kgo sweep against its targets, measured side by side.
1. Local dispatch: a sweep of N jobs on one CPU worker; per job, the sweep's wall time over the job's own
   commands (kgo init of its workspace + the step, as the job's result times them). Target <= 0.5 s.
2. Slurm: a 100-job CPU sweep (kgo check on the CPU, small shape) on a single-node cluster started here;
   wall time against (sum of the jobs' own times / CPUs). Target <= 1.2x. Skipped where Slurm is absent.
3. collect over 10,000 results (copies of a real result). Target <= 2 s.
Usage: bench/sweep_bench.py [kgo] [local_jobs] [slurm_jobs]
"""
import json
import os
import pathlib
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "cli"))
import slurm_cluster  # noqa: E402

KGO = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "build" / "cli" / "kgo")
LOCAL_JOBS = int(sys.argv[2]) if len(sys.argv) > 2 else 20
SLURM_JOBS = int(sys.argv[3]) if len(sys.argv) > 3 else 100
ENV = dict(os.environ, KGO_DATA_DIR=str(ROOT), KGO_HARNESS_DAEMON="0")
SOFTMAX = ROOT / "examples" / "softmax"
SOFTMAX_REF = ROOT / "templates" / "ops" / "softmax" / "ref.py"


def spec(tmp, name, n, step, **extra):
    shapes = [f"{64 + i}x128" for i in range(n)]
    s = dict(name=name, kernels=[{"name": "softmax", "kernel": str(SOFTMAX / "kernel.py"),
                                  "reference": str(SOFTMAX_REF)}],
             platforms=["H200"], shapes=shapes, steps=[step], device="cpu", **extra)
    p = tmp / f"{name}.json"
    p.write_text(json.dumps(s))
    return p


def kgo(*args, env=ENV):
    t = time.perf_counter()
    p = subprocess.run([KGO, *map(str, args)], env=env, capture_output=True, text=True)
    return p, time.perf_counter() - t


def job_seconds(d):
    return [json.loads(f.read_text())["seconds"] for f in (d / "results").glob("*.json")]


def local(tmp):
    d = tmp / "local"
    p, wall = kgo("sweep", "run", spec(tmp, "local", LOCAL_JOBS, "status"), "--dir", d, "--cpu-jobs", "1", "--quiet")
    own = job_seconds(d)
    per_job = (wall - sum(own)) / len(own)
    print(f"1. local dispatch: {len(own)} jobs (kgo init + kgo status each) on one CPU worker: sweep wall {wall:.2f} s,"
          f" jobs' own time {sum(own):.2f} s; overhead {per_job * 1000:.0f} ms per job (target <= 500 ms,"
          f" ratio {per_job / 0.5:.3f}) [exit {p.returncode}]")
    return d


def slurm(tmp):
    absent = slurm_cluster.missing()
    if absent:
        print(f"2. slurm: skipped (missing {', '.join(absent)})")
        return
    with slurm_cluster.Cluster() as c:
        d = tmp / "slurm"
        s = spec(tmp, "slurm", SLURM_JOBS, "check", step_args={"check": ["--trials", "1"]})
        p, wall = kgo("sweep", "run", s, "--dir", d, "--backend", "slurm", "--wait", "--quiet",
                      env=dict(ENV, **{"SLURM_CONF": c.env["SLURM_CONF"]}))
        own = job_seconds(d)
        ideal = sum(own) / c.cpus
        print(f"2. slurm: {len(own)}/{SLURM_JOBS} jobs (kgo init + kgo check on the CPU) on {c.cpus} CPUs: wall"
              f" {wall:.1f} s, sum of job times / CPUs {ideal:.1f} s, ratio {wall / ideal:.2f} (target <= 1.2)"
              f" [exit {p.returncode}: {p.stderr[-300:]}]")


def collect(tmp, src):
    d = tmp / "collect"
    n = 10000
    big = spec(tmp, "collect", 1, "status")
    kgo("sweep", "run", big, "--dir", d, "--quiet")
    plan = json.loads((d / "sweep.json").read_text())
    job = plan["jobs"][0]
    template = json.loads((d / "results" / "0.json").read_text())
    plan["jobs"] = [dict(job, id=i) for i in range(n)]
    (d / "sweep.json").write_text(json.dumps(plan))
    for i in range(n):
        template["job"]["id"] = i
        (d / "results" / f"{i}.json").write_text(json.dumps(template, indent=1))
    runs, cpu = [], []
    for _ in range(3):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        runs.append(kgo("sweep", "collect", d)[1])
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    # Wall and CPU side by side: on a loaded machine the wall time measures the load as much as kgo.
    print(f"3. collect over {n} results: wall {min(runs):.2f} s best, {max(runs):.2f} s worst of 3"
          f" (target <= 2 s, ratio {max(runs) / 2:.2f}); CPU {min(cpu):.2f}-{max(cpu):.2f} s (ratio {max(cpu) / 2:.2f});"
          f" {len((d / 'sweep.csv').read_text().splitlines()) - 1} rows; load {os.getloadavg()[0]:.1f}")


def main():
    print(f"kgo sweep benchmark, {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}, {os.cpu_count()} CPUs,"
          f" load {os.getloadavg()[0]:.1f}")
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="kgo-sweep-bench-"))
    try:
        src = local(tmp)
        collect(tmp, src)
        slurm(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
