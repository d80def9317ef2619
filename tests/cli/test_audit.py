"""`kgo audit` on workspaces with planted violations, each of which must be found at file:line."""
# ctest-cost: 2
import json
import shutil

import pytest

from conftest import FIXTURE_WIKI, git, run_kgo, validate

HOPPER = "docs/hardware-specs/hardware_specs_hopper.md"


def line_of(wiki, needle, path=HOPPER):
    for n, line in enumerate((wiki / path).read_text().splitlines(), start=1):
        if needle in line:
            return n
    raise AssertionError(f"{needle!r} not in {path}")


@pytest.fixture
def wiki(tmp_path):
    """A private copy of the fixture wiki, so tests may edit it (drift)."""
    dest = tmp_path / "wiki"
    shutil.copytree(FIXTURE_WIKI, dest)
    return dest


@pytest.fixture
def ws(tmp_path, kernel_file, wiki):
    parent = tmp_path / "ws"
    parent.mkdir()
    r = run_kgo("init", "a", kernel_file, "--platform", "H100", "--dir", parent, "--wiki", wiki,
                "--dtype", "bf16")
    assert r.rc == 0, r.err
    ws = parent / "kernel_opt_a"
    r = run_kgo("spec", "auto", "--workspace", ws)
    assert r.rc == 0, r.err
    return ws


def audit(ws, *args):
    r = run_kgo("audit", "--workspace", ws, "--json", *args)
    validate(r.json(), "cli/audit.schema.json")
    return r


def commit_all(ws, message):
    git("add", "-A", cwd=ws)
    r = git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", message, cwd=ws)
    assert r.returncode == 0, r.stderr


def findings(r, kind=None):
    return [f for f in r.json()["findings"] if kind is None or f["kind"] == kind]


def plant(path, text):
    """Appends `text` (one line) to `path`; returns its 1-based line number."""
    path.parent.mkdir(parents=True, exist_ok=True)
    old = path.read_text() if path.exists() else ""
    if old and not old.endswith("\n"):
        old += "\n"
    path.write_text(old + text + "\n")
    return len((old + text).splitlines())


def test_clean_workspace_exits_zero(ws):
    r = audit(ws)
    assert r.rc == 0, r.out
    out = r.json()
    assert out["clean"] is True and out["findings"] == []
    assert out["registry_entries"] >= 5 and out["citations_checked"] >= 5
    text = run_kgo("audit", "--workspace", ws)
    assert text.rc == 0 and "audit: clean" in text.out


def test_uncited_number_in_readme(ws):
    line = plant(ws / "README.md", "The H100 moves 3.35 TB/s from HBM.")
    r = audit(ws)
    assert r.rc == 19
    assert [(f["file"], f["line"]) for f in findings(r, "uncited_number")] == [("README.md", line)]
    text = run_kgo("audit", "--workspace", ws)
    assert f"README.md:{line}: uncited_number" in text.out


def test_uncited_number_in_plan(ws):
    line = plant(ws / "plans" / "v1_plan.md", "| L2 Cache | 50 |")
    plant(ws / "plans" / "v1_plan.md", "The kernel uses 128 registers per thread and a 4096x4096 tile grid.")
    r = audit(ws)
    assert r.rc == 19
    assert [(f["file"], f["line"]) for f in findings(r)] == [("plans/v1_plan.md", line)]


def test_uncited_number_in_memory_record(ws):
    record = {"version": "v1", "masked": False,
              "performance": {"bandwidth_gbps": 2900.0, "latency_us": 10.2},
              "environment": {"sm_clock_mhz": 1980},
              "optimization": {"expected_impact": "should approach 3.35 TB/s peak"}}
    (ws / "memory" / "v1.json").write_text(json.dumps(record, indent=2))
    r = audit(ws)
    assert r.rc == 19
    got = findings(r)
    assert [f["file"] for f in got] == ["memory/v1.json"]
    expected_line = next(n for n, l in enumerate((ws / "memory" / "v1.json").read_text().splitlines(), 1)
                         if "expected_impact" in l)
    assert got[0]["line"] == expected_line
    assert "3.35 TB/s" in got[0]["reason"]


def test_measurements_are_exempt(ws):
    plant(ws / "README.md", "- measured copy bandwidth: 2.91 TB/s (kgo bench, median of 20)")
    plant(ws / "benchmark_report.md", "## Measured results\n\n| shape | TB/s |\n|---|---|\n| 4096 | 2.7 TB/s |")
    plant(ws / "plans" / "v2_plan.md", "| Shape | Measured TFLOPS |\n|---|---|\n| 4096 | 612.5 TFLOPS |")
    r = audit(ws)
    assert r.rc == 0, r.out


def test_cited_but_unregistered_citation(ws, wiki):
    fp8 = line_of(wiki, "| **FP8 (Tensor Core)** | 1,978.9 |")
    line = plant(ws / "plans" / "v1_plan.md", f"FP8 peak: 1,978.9 TFLOPS <- <gpu-wiki>/{HOPPER}:L{fp8}")
    r = audit(ws)
    assert r.rc == 19
    got = findings(r, "unregistered_citation")
    assert [(f["file"], f["line"]) for f in got] == [("plans/v1_plan.md", line)]
    assert "kgo spec add" in got[0]["reason"]


def test_registered_citation_with_wrong_value(ws, wiki):
    bw = line_of(wiki, "| Memory Bandwidth | 3.35 TB/s |")
    line = plant(ws / "README.md", f"- H100 HBM bandwidth: 3.5 TB/s <- <gpu-wiki>/{HOPPER}:L{bw}")
    r = audit(ws)
    assert r.rc == 19
    got = findings(r, "citation_unverified")
    assert [(f["file"], f["line"]) for f in got] == [("README.md", line)]
    assert "not 3.5 TB/s" in got[0]["reason"]


def test_malformed_citation(ws):
    line = plant(ws / "plans" / "v1_plan.md", f"see <gpu-wiki>/{HOPPER} for the numbers")
    r = audit(ws)
    assert r.rc == 19
    assert [(f["file"], f["line"], f["kind"]) for f in findings(r)] == [("plans/v1_plan.md", line, "malformed_citation")]


def test_drifted_line_reports_old_and_new_text(ws, wiki):
    path = wiki / HOPPER
    bw = line_of(wiki, "| Memory Bandwidth | 3.35 TB/s |")
    lines = path.read_text().splitlines()
    old = lines[bw - 1]
    lines[bw - 1] = "| Memory Bandwidth | 3.36 TB/s |"
    path.write_text("\n".join(lines) + "\n")
    r = audit(ws)
    assert r.rc == 19
    drift = findings(r, "drift")
    assert len(drift) == 1
    assert drift[0]["file"] == "specs.json"
    assert drift[0]["old_text"] == old and drift[0]["new_text"] == "| Memory Bandwidth | 3.36 TB/s |"
    assert drift[0]["moved_to"] is None
    assert "hbm_bandwidth" in drift[0]["reason"]


def test_moved_line_reports_where_it_went(ws, wiki):
    path = wiki / HOPPER
    bw = line_of(wiki, "| Memory Bandwidth | 3.35 TB/s |")
    lines = path.read_text().splitlines()
    lines.insert(2, "An inserted line.")
    path.write_text("\n".join(lines) + "\n")
    r = audit(ws)
    assert r.rc == 19
    moved = [f for f in findings(r, "drift") if f["moved_to"] == bw + 1]
    assert moved, r.out


def test_history_finds_violations_removed_since(ws):
    plant(ws / "plans" / "v1_plan.md", "Target: the HBM peak of 3.35 TB/s.")
    commit_all(ws, "plan v1")
    (ws / "plans" / "v1_plan.md").write_text("Target: see the Roofline section.\n")
    commit_all(ws, "plan v1 fixed")
    assert audit(ws).rc == 0
    r = audit(ws, "--history")
    assert r.rc == 19
    got = findings(r, "uncited_number")
    assert len(got) == 1 and got[0]["file"] == "plans/v1_plan.md"
    bad_commit = git("log", "--format=%H", "-1", "HEAD~1", cwd=ws).stdout.strip()
    assert got[0]["commit"] == bad_commit
    assert r.json()["commits_checked"] >= 4


def test_hand_edited_registry_is_reported(ws):
    registry = json.loads((ws / "specs.json").read_text())
    registry["specs"][0]["line_text"] += " edited"
    (ws / "specs.json").write_text(json.dumps(registry, indent=2))
    r = audit(ws)
    assert r.rc == 19
    assert findings(r, "registry_invalid") or findings(r, "drift")


def test_audit_without_workspace_fails_cleanly(tmp_path):
    r = run_kgo("audit", "--workspace", tmp_path)
    assert r.rc == 8


def test_everything_kgo_writes_in_the_cpu_workflow_passes_its_audit(workspace):
    """init, spec auto, roofline and baseline (CPU): kgo's own README, specs, roofline.json, report and
    the v0 record carry only cited numbers, so the audit of the work tree and of the history is clean."""
    for args in (["spec", "auto"], ["roofline", "--op", "softmax"],
                 # a small check shape: the interpreter's 4096x4096 took 24 s, and the audit is shape-blind
                 ["baseline", "--device", "cpu", "--trials", "1", "--shape", "64x256", "--quiet"]):
        r = run_kgo(*args, "--workspace", workspace)
        assert r.rc == 0, (args, r.err)
    assert "baseline" in json.loads((workspace / "memory" / "v0.json").read_text())["optimization"]["action_category"]
    for extra in ([], ["--history"]):
        r = run_kgo("audit", *extra, "--workspace", workspace)
        assert r.rc == 0, (extra, r.out, r.err)
        assert "clean" in r.out
