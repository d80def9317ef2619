"""Helpers for the memory / iterate / restart CLI tests: stamping records through
core::record_measurement (the test-only kgo_test_stamp program) and reading workspace state."""
import json
import os
import pathlib
import subprocess

import pytest

from conftest import KGO_BIN, SOURCE_DIR, git, run_kgo, validate

STAMP_BIN = os.environ.get("KGO_TEST_STAMP",
                           str(pathlib.Path(KGO_BIN).resolve().parents[1] / "tests" / "iterate" / "kgo_test_stamp"))


def stamp(ws, version, status="PASS", latency_us=None, gbps=None, sha=None, env=None, perf=None):
    """Writes correctness (and performance) of `version` as `kgo check` / `kgo bench` would."""
    if not os.path.exists(STAMP_BIN):
        pytest.fail(f"{STAMP_BIN} is missing: build the kgo_test_stamp target (tests/iterate)")
    args = [STAMP_BIN, str(ws), version, status]
    if latency_us is not None:
        args.append(str(latency_us))
        if gbps is not None:
            args.append(str(gbps))
    env = dict(os.environ, KGO_DATA_DIR=str(SOURCE_DIR), **(env or {}))
    if sha:
        env["KGO_STAMP_SHA"] = sha
    if perf:
        env["KGO_STAMP_PERF_JSON"] = json.dumps(perf)
    proc = subprocess.run(args, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def kgo_ok(*args, **kw):
    r = run_kgo(*args, **kw)
    assert r.rc == 0, (args, r.rc, r.err)
    return r


def record(ws, version):
    return json.loads((ws / "memory" / f"{version}.json").read_text())


def subjects(ws):
    return git("log", "--format=%s", cwd=ws).stdout.splitlines()


def head(ws, rev="HEAD"):
    return git("rev-parse", rev, cwd=ws).stdout.strip()


def write_plan(ws, n, category="vectorized_load", evidence=None, expected="latency_us -20%", follows="none",
               change="float4 loads instead of float"):
    text = (f"# Iteration V{n} Plan\n\n## Input Evidence\n\nncu: dram 40% of peak -> scalar loads -> vectorize\n\n"
            "## Search Log\n\n| Source | Query | Finding | Actionability |\n|---|---|---|---|\n"
            "| [gpu-wiki] | vector loads | 128-bit loads | high |\n| [ref-project] |  |  |  |\n"
            "| [public-web] |  |  |  |\n\n"
            f"## This Iteration's Action\n\n- action_category: {category}\n- description: float4 loads\n\n"
            f"## Hypothesis\n\n- change: {change}\n"
            f"- evidence: {evidence or 'dram_pct = 40 (profiles/v0/profile.json)'}\n- expected: {expected}\n"
            f"- decision_rule: accept if latency_us falls by at least 5% and correctness is PASS\n- follows: {follows}\n\n"
            "## Expected Impact\n\nDRAM throughput up.\n\n## Risks and Rollback\n\nAlignment; reject restores.\n")
    profile = ws / "profiles" / "v0" / "profile.json"
    if evidence is None and not profile.exists():  # the profile the hypothesis's evidence cites, as `kgo profile` writes it
        profile.parent.mkdir(parents=True, exist_ok=True)
        profile.write_text('{"numbers": {"dram_pct": 40.0}, "verdict": {"bottleneck": "memory"}}\n')
        with open(ws / ".git" / "info" / "exclude", "a") as f:  # kgo profile's output is not committed: keep status clean
            f.write("profiles/\n")
    (ws / "plans" / f"v{n}_plan.md").write_text(text)


def edit_kernel(ws, tag):
    path = ws / "kernel.py"
    path.write_text(path.read_text() + f"\n# {tag}\n")


def fsck_clean(ws, allow_dangling=False):
    """git fsck --strict exits 0 and reports nothing (with allow_dangling: nothing but dangling
    objects, which an interrupted operation leaves until the next kgo command uses them)."""
    # fsck starts a process to verify each commit-graph and multi-pack index; kgo writes neither, so where they
    # are absent (nearly always: thousands of calls in test_iterate_faults) that is a process for nothing.
    objects = pathlib.Path(ws) / ".git" / "objects"
    skip = [] if (objects / "info" / "commit-graph").exists() or (objects / "info" / "commit-graphs").exists() or \
        (objects / "pack" / "multi-pack-index").exists() else ["-c", "core.commitGraph=false", "-c",
                                                               "core.multiPackIndex=false"]
    r = git(*skip, "fsck", "--strict", "--dangling", "--no-progress", cwd=ws)
    lines = [l for l in (r.stdout + r.stderr).splitlines() if l.strip()]
    if allow_dangling:
        lines = [l for l in lines if not l.startswith("dangling ")]
    return r.returncode == 0 and not lines, r.stdout + r.stderr


def records_valid(ws):
    """Every memory/*.json parses and matches the iteration schema; no temporary files anywhere."""
    for path in sorted((ws / "memory").iterdir()):
        if path.name == ".gitkeep":
            continue
        assert path.name.endswith(".json") and not path.name.startswith("."), f"stray file {path.name}"
        validate(json.loads(path.read_text()), "iteration.schema.json")
    for folder in (ws, ws / "plans"):
        for path in folder.iterdir():
            assert ".tmp" not in path.name, f"stray file {path.relative_to(ws)}"


def accepted_v0(ws, latency=100.0, gbps=800.0):
    kgo_ok("memory", "create", "--workspace", ws)
    kgo_ok("memory", "update", "v0", "--set", "profile_evidence.bottleneck_type=memory_bound",
           "--set", "profile_evidence.evidence_summary=dram throughput 41% of peak", "--workspace", ws)
    stamp(ws, "v0", "PASS", latency, gbps)
    return kgo_ok("iterate", "accept", "v0", "--workspace", ws, "--json").json()


def pending(ws, n, latency=90.0, gbps=900.0, category="vectorized_load", status="PASS"):
    """Record vN with a plan, an edited kernel and a stamp: ready for accept or reject."""
    kgo_ok("memory", "create", f"v{n}", "--workspace", ws)
    write_plan(ws, n, category)
    edit_kernel(ws, f"v{n}")
    stamp(ws, f"v{n}", status, latency, gbps)


def profile_numbers(ws, version):
    return json.loads((ws / "profiles" / version / "profile.json").read_text())["numbers"]


def learning_session(ws, tools_env, steps, fake_ncu_csv):
    """A softmax session as an agent runs it: cited roofline, v0 profiled, benched and accepted, then per
    step (category, latency_us, decide, follows): profile, a plan whose evidence quotes the previous
    profile, an edit, stamps, accept or reject. Returns the accept/reject JSON outputs."""
    kgo_ok("spec", "auto", "--workspace", ws, env=tools_env)
    kgo_ok("roofline", "--op", "softmax", "--shape", "1024x1024", "--shape", "4096x4096", "--dtype", "fp32",
           "--workspace", ws, env=tools_env)
    outs = []
    lat0 = None
    for n, (category, latency, decide, follows) in enumerate([("baseline", 100.0, "accept", "none"), *steps]):
        if n > 0:
            edit_kernel(ws, f"step {n}: {category}")
        kgo_ok("memory", "create", "--workspace", ws, env=tools_env)
        fake_ncu_csv()
        kgo_ok("profile", "--op", "softmax", "--workspace", ws, env=tools_env)
        if n > 0:
            dram = profile_numbers(ws, f"v{n - 1}")["dram_pct"]
            write_plan(ws, n, category, evidence=f"dram_pct = {dram} (profiles/v{n - 1}/profile.json)",
                       expected="latency_us -15%", follows=follows, change=f"{category} in the row loop")
        lat0 = lat0 or latency
        gbps = 4096 * 4096 * 4 * 2 / (latency * 1e-6) / 1e9
        perf = {"bandwidth_peak_utilization_pct": round(gbps / 4800 * 100, 1),
                "bandwidth_target_utilization_pct": round(gbps / 4800 * 100 / 0.9, 1),
                "details": {"sizes": [
                    {"shape": [1024, 1024], "median_us": latency / 8, "speedup_vs_eager": 2.0 * lat0 / latency,
                     "speedup_vs_compile": 1.1 * lat0 / latency, "pct_of_target": 30.0},
                    {"shape": [4096, 4096], "median_us": latency, "speedup_vs_eager": 2.5 * lat0 / latency,
                     "speedup_vs_compile": 1.3 * lat0 / latency, "pct_of_target": 60.0}]}}
        stamp(ws, f"v{n}", "PASS", latency, gbps, perf=perf)
        if decide == "accept":
            outs.append(kgo_ok("iterate", "accept", f"v{n}", "--workspace", ws, "--json", env=tools_env).json())
        else:
            outs.append(kgo_ok("iterate", "reject", f"v{n}", "--reason", "slower than its parent", "--workspace", ws,
                               "--json", env=tools_env).json())
    return outs
