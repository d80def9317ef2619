"""kgo sweep: spec errors, the local backend on the CPU (pinning, serialising, retries, timeouts,
resume, collect) and the Slurm backend on a real single-node cluster (job arrays, cancel, resume)."""
# ctest-cost: 43
import csv
import json
import os
import time

import pytest

import planted
import slurm_cluster
from conftest import SOURCE_DIR, git, validate

SOFTMAX = SOURCE_DIR / "examples" / "softmax"
SOFTMAX_REF = SOURCE_DIR / "templates" / "ops" / "softmax" / "ref.py"


def write_spec(tmp_path, **spec):
    spec.setdefault("name", "t")
    spec.setdefault("kernels", [{"name": "softmax", "kernel": str(SOFTMAX / "kernel.py"),
                                 "reference": str(SOFTMAX_REF)}])
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    return path


def results(d):
    out = {}
    for f in (d / "results").glob("*.json"):
        r = json.loads(f.read_text())
        validate(r, "sweep/result.schema.json")
        out[r["job"]["id"]] = r
    return out


def test_bad_specs_are_refused_with_their_fix(kgo, tmp_path):
    bad = write_spec(tmp_path, steps=["launch"], platforms=["H200"])
    r = kgo("sweep", "run", bad, "--dir", tmp_path / "s")
    assert r.rc == 16 and "steps" in r.err
    (tmp_path / "x.json").write_text("name = 't'\n")
    r = kgo("sweep", "run", tmp_path / "x.json", "--dir", tmp_path / "s")
    assert r.rc == 3 and "not valid JSON" in r.err
    nok = write_spec(tmp_path, steps=["status"], platforms=["H200"],
                     kernels=[{"name": "k", "kernel": "missing.py"}])
    r = kgo("sweep", "run", nok, "--dir", tmp_path / "s")
    assert r.rc == 3 and "missing.py" in r.err and "relative to the spec" in r.err
    noplat = write_spec(tmp_path, steps=["status"])
    r = kgo("sweep", "run", noplat, "--dir", tmp_path / "s")
    assert r.rc == 3 and "platforms" in r.err
    assert not (tmp_path / "s").exists()
    r = kgo("sweep", "status", tmp_path / "nothing")
    assert r.rc == 3 and "kgo sweep run" in r.err


def test_step_args_that_change_the_verdict_or_the_axes_are_refused(kgo, tmp_path):
    cases = {
        "check": (["--atol", "1"], "loosens the verdict"),
        "bench": (["--runs", "5", "--no-flush-l2"], "warm L2"),
        "baseline": (["--workspace", "/etc"], "own workspace copy"),
        "profile": (["--ncu=/tmp/evil"], "program every job would run"),
        "status": (["--python", "x"], "program every job would run"),
    }
    for step, (args, why) in cases.items():
        spec = write_spec(tmp_path, steps=[step], platforms=["H200"], step_args={step: args})
        r = kgo("sweep", "run", spec, "--dir", tmp_path / "s")
        assert r.rc == 3 and why in r.err and f"step_args.{step}" in r.err, (step, r.err)
        assert not (tmp_path / "s").exists()
    spec = write_spec(tmp_path, steps=["check"], platforms=["H200"], step_args={"check": ["--shape", "8x8"]})
    r = kgo("sweep", "run", spec, "--dir", tmp_path / "s")
    assert r.rc == 3 and "\"shapes\"" in r.err
    spec = write_spec(tmp_path, steps=["check"], platforms=["H200"], step_args={"check": ["--bogus"]})
    r = kgo("sweep", "run", spec, "--dir", tmp_path / "s")
    assert r.rc == 3 and "no such option" in r.err and "--trials" in r.err


def test_toml_spec_runs_and_bad_toml_names_the_line(kgo, tmp_path):
    toml = tmp_path / "spec.toml"
    toml.write_text(f'''name = "t"
steps = ["status"]
platforms = ["H200"]
shapes = ["64x128"]

[[kernels]]
name = "softmax"
kernel = "{SOFTMAX / 'kernel.py'}"
reference = "{SOFTMAX_REF}"
''')
    r = kgo("sweep", "run", toml, "--dir", tmp_path / "s", "--json")
    assert r.rc == 0, r.err
    assert r.json()["jobs"] == 1 and len(results(tmp_path / "s")) == 1
    (tmp_path / "bad.toml").write_text('name = "t"\nsteps = [status]\n')
    r = kgo("sweep", "run", tmp_path / "bad.toml", "--dir", tmp_path / "b")
    assert r.rc == 3 and "not valid TOML" in r.err and "line 2" in r.err


def test_a_second_runner_on_one_folder_is_refused(kgo, tmp_path):
    import fcntl
    spec = write_spec(tmp_path, steps=["status"], platforms=["H200"])
    d = tmp_path / "s"
    d.mkdir()
    with open(d / ".runner.lock", "w") as held:  # what a running `kgo sweep run` holds
        fcntl.flock(held, fcntl.LOCK_EX)
        r = kgo("sweep", "run", spec, "--dir", d)
        assert r.rc == 9 and "sweep folder" in r.err and "locked" in r.err
        assert not (d / "results").exists()
    r = kgo("sweep", "run", spec, "--dir", d)
    assert r.rc == 0, r.err


def test_propose_step_decides_each_prepared_candidate_in_its_own_copy(kgo, tmp_path):
    import shutil
    from iteration_helpers import write_plan
    base = tmp_path / "good"
    base.mkdir()
    (tmp_path / "k.py").write_text(planted.GOOD)
    assert kgo("init", "softmax", tmp_path / "k.py", "--platform", "H200", "--reference", planted.REF,
               "--shape", "8x33", "--dir", base).rc == 0
    good = base / "kernel_opt_softmax"
    for args in (["spec", "auto"], ["roofline", "--op", "softmax"],
                 ["baseline", "--device", "cpu", "--shape", "8x33", "--trials", "1"], ["plan", "new", "v1"]):
        r = kgo(*args, "--workspace", good)
        assert r.rc == 0, (args, r.err)
    write_plan(good, 1)
    bad = tmp_path / "bad" / "kernel_opt_softmax"
    shutil.copytree(good, bad, symlinks=True)
    (bad / "kernel.py").write_text(planted.wrong())
    before = {w: git("rev-parse", "HEAD", cwd=w).stdout for w in (good, bad)}
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"name": "p", "workspaces": [str(good), str(bad)], "steps": ["propose"],
                                "shapes": ["8x33"], "device": "cpu",
                                "step_args": {"propose": ["--trials", "1", "--description", "screened by a sweep"]}}))
    d = tmp_path / "s"
    r = kgo("sweep", "run", spec, "--dir", d, "--json")
    assert r.rc == 1, r.err  # one candidate rejected
    res = results(d)
    assert res[0]["status"] == "ok" and res[0]["verdict"] == "accepted", res[0]
    assert res[1]["status"] == "fail" and res[1]["verdict"] == "rejected", res[1]
    assert res[0]["command"][:2] == ["kgo", "propose"] and "--description" in res[0]["command"]
    # Decided in the jobs' copies: the candidates themselves are untouched.
    assert {w: git("rev-parse", "HEAD", cwd=w).stdout for w in (good, bad)} == before


def test_local_pins_one_worker_per_gpu_and_serialises_its_jobs(kgo, tmp_path):
    spec = write_spec(tmp_path, steps=["status"], platforms=["H100", "H200"],
                      shapes=["64x128", "128x256", "256x512"])
    d = tmp_path / "s"
    r = kgo("sweep", "run", spec, "--dir", d, "--gpus", "0,1", "--json")
    assert r.rc == 0, r.err
    out = r.json()
    validate(out, "cli/sweep-run.schema.json")
    assert out["workers"] == ["gpu:0", "gpu:1"] and sorted(out["submitted"]) == list(range(6))
    res = results(d)
    assert len(res) == 6 and all(x["status"] == "ok" for x in res.values())
    by_gpu = {}
    for x in res.values():
        by_gpu.setdefault(x["provenance"]["cuda_visible_devices"], []).append(
            (x["started_unix"], x["finished_unix"]))
    assert set(by_gpu) == {"0", "1"}
    for spans in by_gpu.values():  # one GPU runs one job at a time
        spans.sort()
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:])), spans
    # Each job had its own workspace, made from the kernel, and names its hashes and platform.
    for i, x in res.items():
        ws = d / "jobs" / str(i) / "kernel_opt_softmax"
        assert (ws / "kgo.json").is_file()
        assert json.loads((ws / "kgo.json").read_text())["platform_input"] == x["job"]["platform"]
        p = x["provenance"]
        assert p["kernel_sha256"] == planted.sha256(SOFTMAX / "kernel.py")
        assert p["reference_sha256"] == planted.sha256(SOFTMAX_REF)
        assert p["host"] == os.uname().nodename and len(p["kgo_commit"]) >= 7
    assert validate(json.loads((d / "sweep.json").read_text()), "sweep/plan.schema.json") is None


def test_local_cpu_check_retries_timeouts_resumes_and_collects(kgo, tmp_path):
    good = write_spec(tmp_path, name="cpu", steps=["check"], platforms=["H200"], shapes=["64x128"],
                      device="cpu", step_args={"check": ["--trials", "1"]},
                      kernels=[{"name": "good", "kernel": str(SOFTMAX / "kernel.py"),
                                "reference": str(SOFTMAX_REF)},
                               {"name": "wrong", "kernel": str(tmp_path / "wrong.py"),
                                "reference": str(SOFTMAX_REF)}])
    (tmp_path / "wrong.py").write_text(planted.wrong())
    d = tmp_path / "s"
    r = kgo("sweep", "run", good, "--dir", d, "--cpu-jobs", "2")
    assert r.rc == 1, r.err  # one job failed its check
    assert "[2/2]" in r.err
    res = results(d)
    assert res[0]["status"] == "ok" and res[0]["verdict"] == "PASS" and res[0]["attempts"] == 1
    assert res[1]["status"] == "fail" and res[1]["verdict"] == "FAIL" and res[1]["attempts"] == 1  # never retried
    assert res[0]["provenance"]["cuda_visible_devices"] == "" and res[0]["provenance"]["gpu"] is None
    assert json.loads((d / "jobs" / "0" / "output.json").read_text())["verdict"] == "PASS"

    # Resume: only the job without a result runs again; the other result is untouched.
    kept = (d / "results" / "1.json").read_bytes()
    (d / "results" / "0.json").unlink()
    r = kgo("sweep", "run", good, "--dir", d, "--json")
    assert r.json()["submitted"] == [0] and r.json()["already_done"] == 1
    assert (d / "results" / "1.json").read_bytes() == kept

    c = kgo("sweep", "collect", d, "--json")
    assert c.rc == 1
    validate(c.json(), "sweep/table.schema.json")
    table = json.loads((d / "sweep-table.json").read_text())
    validate(table, "sweep/table.schema.json")
    rows = list(csv.DictReader((d / "sweep.csv").open()))
    assert [(x["label"], x["status"], x["verdict"]) for x in rows] == [
        ("good/H200/64x128/check", "ok", "PASS"), ("wrong/H200/64x128/check", "fail", "FAIL")]
    md = (d / "sweep.md").read_text()
    assert "| 1 | wrong/H200/64x128/check | fail | FAIL |" in md
    assert (d / "sweep.svg").read_text().startswith("<svg")

    # The same folder never mixes two sweeps.
    other = write_spec(tmp_path, name="other", steps=["status"], platforms=["H200"])
    r = kgo("sweep", "run", other, "--dir", d)
    assert r.rc == 3 and "another sweep" in r.err


def test_local_timeout_is_retried_then_recorded(kgo, tmp_path):
    spec = write_spec(tmp_path, name="slow", steps=["check"], platforms=["H200"], shapes=["64x128"],
                      device="cpu", timeout_s=0.3, retries=1)
    d = tmp_path / "s"
    r = kgo("sweep", "run", spec, "--dir", d, "--quiet")
    assert r.rc == 1
    x = results(d)[0]
    assert x["status"] == "timeout" and x["attempts"] == 2 and x["exit_code"] is None


# ---------------------------------------------------------------- Slurm, on a real single-node cluster

@pytest.fixture(scope="module")
def cluster():
    absent = slurm_cluster.missing()
    if absent:
        pytest.skip("Slurm not installed here (missing: " + ", ".join(absent) + "); scripts/deps.sh installs it")
    c = slurm_cluster.Cluster().start()
    yield c
    c.stop()
    for p in c.procs:
        assert p.poll() is not None


def wait_queue_empty(kgo, d, env, timeout=300):
    t0 = time.time()
    while time.time() - t0 < timeout:
        s = kgo("sweep", "status", d, "--json", env=env).json()
        if not s["queue"]:
            return s
        time.sleep(0.5)
    raise AssertionError("sweep still queued after %d s" % timeout)


def test_slurm_arrays_cancel_resume_collect(kgo, tmp_path, cluster):
    spec = write_spec(tmp_path, name="slurm", steps=["status"], platforms=["H100", "H200"],
                      shapes=["64x128", "128x256", "256x512", "512x1024"], dtypes=["fp32", "fp16", "bf16"])
    d = tmp_path / "s"
    import threading
    waited = {}  # a run that waits for its array while part of it is cancelled from elsewhere
    runner = threading.Thread(target=lambda: waited.update(r=kgo(
        "sweep", "run", spec, "--dir", d, "--backend", "slurm", "--throttle", "2", "--wait", "--json", env=cluster.env)))
    runner.start()
    t0 = time.time()
    while True:
        assert time.time() - t0 < 120, "the array was never queued"
        if (d / "sweep.json").exists():
            st = kgo("sweep", "status", d, "--json", env=cluster.env).json()
            if sum(st["queue"].values()) >= 1:
                break
        time.sleep(0.2)
    validate(st, "cli/sweep-status.schema.json")
    c = kgo("sweep", "cancel", d, "--job", *[str(i) for i in range(16, 24)], "--json", env=cluster.env)
    assert c.rc == 0, c.err
    validate(c.json(), "cli/sweep-cancel.schema.json")
    cancelled = c.json()["slurm_cancelled"]
    runner.join(300)
    r = waited["r"]
    out = r.json()
    validate(out, "cli/sweep-run.schema.json")
    assert len(out["submitted"]) == 24 and out["slurm_job_id"].isdigit()
    assert cancelled and all(x.startswith(out["slurm_job_id"] + "_") for x in cancelled)
    missing = out["counts"]["missing"]
    assert r.rc == 1 and missing == len(cancelled), (r.rc, out["counts"])  # jobs that never wrote a result fail the run
    st = wait_queue_empty(kgo, d, cluster.env)
    assert st["counts"]["missing"] == missing and st["counts"]["ok"] == 24 - missing

    r = kgo("sweep", "run", spec, "--dir", d, "--backend", "slurm", "--wait", "--json", env=cluster.env)
    assert r.rc == 0, r.err
    again = r.json()
    assert again["already_done"] == 24 - missing and len(again["submitted"]) == missing
    assert again["counts"]["ok"] == 24
    res = results(d)
    assert {x["provenance"]["slurm_job_id"] for x in res.values()} >= {out["slurm_job_id"]}
    assert all(x["provenance"]["slurm_array_task"] is not None for x in res.values())

    c = kgo("sweep", "collect", d, "--json", env=cluster.env)
    assert c.rc == 0 and c.json()["counts"]["ok"] == 24
    rows = list(csv.DictReader((d / "sweep.csv").open()))
    assert [int(x["id"]) for x in rows] == list(range(24)) and {x["status"] for x in rows} == {"ok"}
    assert rows[23]["label"] == "softmax/H200/512x1024/bf16/status"


def test_slurm_backend_without_slurm_names_the_fix(kgo, tmp_path):
    spec = write_spec(tmp_path, steps=["status"], platforms=["H200"])
    r = kgo("sweep", "run", spec, "--dir", tmp_path / "s", "--backend", "slurm", env={"PATH": "/nonexistent"})
    assert r.rc == 1 and "sbatch not found" in r.err


def test_local_jobs_share_their_workers_warm_judge_and_it_stops_with_the_run(kgo, tmp_path):
    """harness/warm_judge.hpp: a local worker's jobs (here one CPU slot) go through one warm judge of kgo's own, in a
    private folder, each job still in its own workspace and cell; the judge ends with the run."""
    spec = write_spec(tmp_path, steps=["check"], platforms=["H200"], shapes=["64x128", "128x256"], device="cpu",
                      step_args={"check": ["--detail", "--trials", "1"]}, retries=0)
    d = tmp_path / "s"
    # The test session runs kgo with KGO_HARNESS_DAEMON=0 (hermetic), which turns the run's warm judges off too.
    r = kgo("sweep", "run", spec, "--dir", d, "--cpu-jobs", "1", "--json", env={"KGO_HARNESS_DAEMON": "auto"})
    assert r.rc == 0, r.err
    outs = [json.loads((d / "jobs" / str(i) / "output.json").read_text()) for i in range(2)]
    assert [o["verdict"] for o in outs] == ["PASS", "PASS"]
    workers = [o["harness"]["worker"] for o in outs]
    assert workers[0]["pid"] == workers[1]["pid"] and workers[1]["warm"], workers
    cells = [o["harness"]["kernel_process"]["pid"] for o in outs]
    assert cells[0] != cells[1], "two workspaces shared a kernel process"
    deadline = time.time() + 10
    while os.path.exists(f"/proc/{workers[0]['pid']}") and time.time() < deadline:
        time.sleep(0.1)
    assert not os.path.exists(f"/proc/{workers[0]['pid']}"), "the run's warm judge outlived it"
