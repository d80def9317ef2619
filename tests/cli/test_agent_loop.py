"""The agent loop's traps (issue 32): on a CPU the loop ends (`next` reaches a terminal state), a plan's
evidence can be met honestly (none, or a number of a stamped record in any notation kgo prints) but not by
a made-up small number, the plan is checked (citations included) before the check is spent, the Hypothesis
reaches the record, the Iteration Log and the report, `report` commits, and an edited decided record is
named (with its repair) by next, status and propose before anything runs."""
# ctest-cost: 4
import json

import pytest

from conftest import SOURCE_DIR, git, run_kgo, validate
from iteration_helpers import record
from planted import wrong

CPU = ["--device", "cpu", "--shape", "8x33", "--trials", "1"]

CPU_HYPOTHESIS = ("- change: keep the kernel, propose it again\n- evidence: none\n- expected: none\n"
                  "- decision_rule: accept if correctness is PASS\n- follows: none\n")


def plan_text(n, hypothesis=CPU_HYPOTHESIS, search_finding="one program per row"):
    return (f"# Iteration V{n} Plan\n\n## Input Evidence\n\nthe CPU check of v0 passed -> no timing here -> "
            "iterate on correctness\n\n## Search Log\n\n| Source | Query | Finding | Actionability |\n"
            f"|---|---|---|---|\n| [gpu-wiki] | softmax rows | {search_finding} | high |\n"
            "| [ref-project] |  |  |  |\n| [public-web] |  |  |  |\n\n"
            "## This Iteration's Action\n\n- action_category: tiling\n- description: same tiles\n\n"
            f"## Hypothesis\n\n{hypothesis}\n## Expected Impact\n\nNone on a CPU.\n\n"
            "## Risks and Rollback\n\nNone; reject restores.\n")


def ok(*args, **kw):
    r = run_kgo(*args, **kw)
    assert r.rc == 0, (args, r.rc, r.out, r.err)
    return r


def jnext(ws):
    r = ok("--json", "next", "--workspace", ws)
    doc = json.loads(r.out)
    validate(doc, "cli/next.schema.json")
    return doc


@pytest.fixture
def cpu_ws(workspace):
    """A workspace with specs, roofline and a CPU baseline (v0 decided, nothing timed)."""
    ok("spec", "auto", "--workspace", workspace)
    ok("roofline", "--op", "softmax", "--workspace", workspace)
    ok("baseline", *CPU, "--workspace", workspace)
    return workspace


def test_cpu_loop_ends_and_the_hypothesis_reaches_record_log_and_report(cpu_ws):
    ws = cpu_ws
    n = jnext(ws)
    assert n["state"] == "correct_only" and n["terminal"] and n["tool"] == "report", n
    ok("plan", "new", "v1", "--workspace", ws)
    (ws / "plans" / "v1_plan.md").write_text(plan_text(1))
    check = json.loads(ok("--json", "plan", "check", "v1", "--workspace", ws).out)
    assert check["ok"], check
    assert jnext(ws)["state"] == "edit"
    ok("propose", *CPU, "--workspace", ws)
    rec = record(ws, "v1")
    assert rec["prediction"]["change"] == "keep the kernel, propose it again"
    assert rec["prediction"]["correctness"] == "PASS" and rec["prediction"]["baseline"] is None
    assert "keep the kernel" in rec["optimization"]["hypothesis"]
    log = (ws / "README.md").read_text()
    assert "correctness only (accept if correctness is PASS) / PASS" in log
    # A rejected iteration: status names the commit that rejected it.
    ok("plan", "new", "v2", "--workspace", ws)
    (ws / "plans" / "v2_plan.md").write_text(plan_text(2))
    (ws.parent / "wrong.py").write_text(wrong())
    assert run_kgo("propose", *CPU, "--kernel", ws.parent / "wrong.py", "--workspace", ws).rc == 1
    v2 = [r for r in json.loads(ok("--json", "status", "--workspace", ws).out)["records"] if r["version"] == "v2"][0]
    assert v2["commit"] and git("log", "-1", "--format=%s", v2["commit"], cwd=ws).stdout.startswith("V2: rejected")
    # It is the record's decision commit, not the newest commit whose subject reads like one.
    assert git("commit", "--allow-empty", "-m", "V2: rejected | written by hand", cwd=ws).returncode == 0
    again = [r for r in json.loads(ok("--json", "status", "--workspace", ws).out)["records"] if r["version"] == "v2"]
    assert again[0]["commit"] == v2["commit"], again
    r = json.loads(ok("--json", "report", "--workspace", ws).out)
    validate(r, "cli/report.schema.json")
    assert git("status", "--porcelain", cwd=ws).stdout == ""  # report committed what it wrote
    assert git("rev-parse", "HEAD", cwd=ws).stdout.strip() == r["commit"]
    assert "correctness only (accept if correctness is PASS) / PASS" in (ws / "report" / "final_report.md").read_text()
    assert jnext(ws)["state"] == "correct_only"


def test_evidence_is_read_back_in_any_notation_with_a_relative_tolerance(cpu_ws):
    ws = cpu_ws
    ok("plan", "new", "v1", "--workspace", ws)
    err = record(ws, "v0")["correctness"]["max_abs_err"]
    assert 0 < err < 1e-3

    def check(evidence):
        hyp = CPU_HYPOTHESIS.replace("- evidence: none", f"- evidence: {evidence}")
        (ws / "plans" / "v1_plan.md").write_text(plan_text(1, hyp))
        return json.loads(run_kgo("--json", "plan", "check", "v1", "--workspace", ws).out)

    assert check(f"correctness.max_abs_err = {err:.4e} (memory/v0.json)")["ok"]  # as kgo prints it
    assert check(f"correctness.max_abs_err = {err:.12f} (memory/v0.json)")["ok"]
    made_up = check("correctness.max_abs_err = 0.01 (memory/v0.json)")  # within the old 0.05 absolute slack
    assert not made_up["ok"] and any("quote the measured value" in p for p in made_up["problems"]), made_up
    # Once something was profiled, `none` no longer passes: the plan must cite the numbers.
    (ws / "profiles" / "v0").mkdir(parents=True)
    (ws / "profiles" / "v0" / "profile.json").write_text('{"numbers": {"dram_pct": 40.0}}\n')
    timed = check("none")
    assert not timed["ok"] and any("no `- evidence:" in p for p in timed["problems"]), timed


def test_an_unregistered_citation_or_uncited_number_is_refused_before_the_check_is_spent(cpu_ws):
    ws = cpu_ws
    spec = json.loads((ws / "specs.json").read_text())["specs"][0]
    ok("plan", "new", "v1", "--workspace", ws)
    heads = git("rev-parse", "HEAD", cwd=ws).stdout
    for finding, kind in [(f"L2 is 60 MB <- <gpu-wiki>/{spec['file']}:L1", "unregistered_citation"),
                          ("HBM bandwidth 3.35 TB/s", "uncited_number")]:
        (ws / "plans" / "v1_plan.md").write_text(plan_text(1, search_finding=finding))
        r = run_kgo("--json", "plan", "check", "v1", "--workspace", ws)
        doc = json.loads(r.out)
        assert r.rc == 21 and any(kind in p for p in doc["problems"]), (finding, doc)
        p = run_kgo("--json", "propose", *CPU, "--workspace", ws)
        assert p.rc == 21 and "nothing was run" in json.loads(p.out)["error"], p.out
        assert record(ws, "v1")["correctness"] is None  # the check was not spent
        assert git("rev-parse", "HEAD", cwd=ws).stdout == heads  # nothing committed


def test_an_edited_decided_record_is_named_with_its_repair_before_anything_runs(cpu_ws):
    ws = cpu_ws
    rec = record(ws, "v0")
    rec["correctness"]["max_abs_err"] = 0.0
    (ws / "memory" / "v0.json").write_text(json.dumps(rec, indent=2) + "\n")
    n = jnext(ws)
    assert n["state"] == "repair" and n["command"].startswith("git checkout -- memory/v0.json"), n
    s = json.loads(ok("--json", "status", "--workspace", ws).out)
    validate(s, "cli/status.schema.json")
    v0 = [r for r in s["records"] if r["version"] == "v0"][0]
    assert v0["edited"] and "git checkout -- memory/v0.json" in v0["edited"]
    p = run_kgo("--json", "propose", *CPU, "--workspace", ws)
    assert p.rc == 17 and "git checkout -- memory/v0.json" in json.loads(p.out)["error"], p.out
    assert not (ws / "memory" / "v1.json").exists()
    git("checkout", "--", "memory/v0.json", cwd=ws)
    assert jnext(ws)["state"] == "correct_only"


def test_next_names_unreachable_targets_when_no_launch_floor_is_registered(cpu_ws):
    ws = cpu_ws
    (ws / "profiles" / "v0").mkdir(parents=True)  # something was timed here
    (ws / "profiles" / "v0" / "profile.json").write_text('{"numbers": {"dram_pct": 40.0}}\n')
    roof = json.loads((ws / "roofline.json").read_text())
    assert roof["inputs"]["launch_latency"] is None
    roof["evaluated"], roof["met"] = True, False
    roof["shapes"][0]["measured"] = {"met": False}
    (ws / "roofline.json").write_text(json.dumps(roof))
    n = jnext(ws)
    assert n["state"] == "unreachable" and n["terminal"] and "kgo ceiling --record" in n["command"], n
    assert roof["shapes"][0]["label"] in n["why"]


def test_json_errors_have_one_stream(tmp_path):
    r = run_kgo("--json", "status", "--workspace", tmp_path / "none")
    assert r.rc == 8 and r.err == "" and json.loads(r.out)["exit_code"] == 8


def test_a_typed_time_below_the_roofline_floor_is_refused(workspace):
    ok("spec", "auto", "--workspace", workspace)
    base = ["roofline", "--op", "softmax", "--shape", "33x100", "--dry-run", "--json", "--workspace", workspace]
    floor_us = json.loads(ok(*base).out)["roofline"]["shapes"][0]["roofline_floor_s"] * 1e6
    r = run_kgo(*base, "--time-us", floor_us * 0.75)  # 133% of the bandwidth
    assert r.rc == 3 and "below the roofline floor" in json.loads(r.out)["error"], r.out
    assert run_kgo(*base, "--time-us", floor_us * 2).rc in (0, 2)


def test_a_timed_run_ends_when_its_iteration_budget_is_decided(tmp_path, kernel_file):
    """On a GPU the Stop Conditions may never be met: the run ends once kgo.json's max_iterations (fixed at init,
    the seed's "max iterations") are decided, so an agent that follows `kgo next` always reaches an end."""
    parent = tmp_path / "ws"
    parent.mkdir()
    ok("init", "softmax", kernel_file, "--platform", "H100", "--dir", parent, "--shape", "4096x4096",
       "--max-iterations", "1", "--reference", SOURCE_DIR / "templates" / "ops" / "softmax" / "ref.py")
    ws = parent / "kernel_opt_softmax"
    assert json.loads((ws / "kgo.json").read_text())["max_iterations"] == 1
    ok("spec", "auto", "--workspace", ws)
    ok("roofline", "--op", "softmax", "--workspace", ws)
    ok("baseline", *CPU, "--workspace", ws)
    ok("plan", "new", "v1", "--workspace", ws)
    (ws / "plans" / "v1_plan.md").write_text(plan_text(1))
    ok("propose", *CPU, "--workspace", ws)
    assert jnext(ws)["state"] == "correct_only"   # a CPU session ends first
    (ws / "profiles" / "v0").mkdir(parents=True)  # something was timed here (as on a GPU)
    (ws / "profiles" / "v0" / "profile.json").write_text('{"numbers": {"dram_pct": 40.0}}\n')
    n = jnext(ws)
    assert n["state"] == "budget_spent" and n["terminal"] and n["tool"] == "report", n
    assert "max_iterations 1" in n["why"], n
    bad = run_kgo("init", "other", kernel_file, "--platform", "H100", "--dir", parent, "--max-iterations", "0")
    assert bad.rc != 0 and "max-iterations" in bad.err, bad.err
