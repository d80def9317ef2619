"""`kgo baseline`: Stage 1 in one command, checked with the git CLI."""
# ctest-cost: 1
import json

import pytest

from conftest import git, run_kgo, validate
from planted import CPU, GOOD, forged_timer, has_gpu, record, sha256, wrong


def subjects(ws):
    return git("log", "--format=%s", cwd=ws).stdout.splitlines()


def test_failed_correctness_commits_nothing_and_says_why(workspace):
    (workspace / "kernel.py").write_text(wrong())
    git("commit", "-qam", "planted wrong kernel", cwd=workspace)
    before = subjects(workspace)
    r = run_kgo("baseline", "--workspace", workspace, *CPU, "--trials", "1", "--quiet", "--json")
    assert r.rc == 1
    assert "baseline NOT committed: correctness FAIL" in (r.out + r.err)
    j = r.json()
    validate(j, "cli/baseline.schema.json")
    assert j["committed"] is False and j["commit"] is None and j["refused"].startswith("correctness FAIL")
    # the check part is check's summary: the failing cases, not the harness result
    assert "harness" not in j["check"] and j["check"]["failures"] and "--detail" in j["detail"]
    assert subjects(workspace) == before
    r = run_kgo("baseline", "--workspace", workspace, *CPU, "--trials", "1", "--quiet", "--json", "--detail")
    full = r.json()
    validate(full, "cli/baseline.schema.json")
    assert full["check"]["harness"]["cases"] and "detail" not in full
    assert len(r.out) > 2 * len(json.dumps(j, separators=(",", ":")))
    assert subjects(workspace) == before
    assert "NOT COMMITTED" in (workspace / "baseline_report.md").read_text()
    assert record(workspace)["quality_gate"]["result"] == "PENDING"
    assert record(workspace)["correctness"]["status"] == "FAIL"


def test_crash_commits_nothing(workspace):
    from planted import segfault
    (workspace / "kernel.py").write_text(segfault())
    r = run_kgo("baseline", "--workspace", workspace, *CPU, "--quiet")
    assert r.rc == 1
    assert "correctness CRASH" in r.err
    assert not any(s.startswith("V0") for s in subjects(workspace))


def test_cpu_baseline_commits_v0(workspace):
    assert run_kgo("spec", "auto", "--workspace", workspace).rc == 0
    r = run_kgo("baseline", "--workspace", workspace, *CPU, "--trials", "2", "--quiet", "--json")
    assert r.rc == 0, r.err
    j = r.json()
    validate(j, "cli/baseline.schema.json")
    assert j["committed"] and j["bench"] is None and "no GPU" in j["bench_skipped"]
    log = subjects(workspace)
    assert log[1] == "V0: baseline kernel" and log[0].startswith("V0: record the id")
    head1 = git("rev-parse", "HEAD~1", cwd=workspace).stdout.strip()
    assert j["commit"] == head1
    rec = record(workspace)
    assert rec["git_commit"] == head1
    assert rec["quality_gate"]["result"] == "PASS"
    assert rec["quality_gate"]["kernel_sha256"] == sha256(workspace / "kernel.py")
    assert any(ref["source_type"] == "gpu-wiki" for ref in rec["references"])
    shown = git("show", "--stat", "--format=", "HEAD~1", cwd=workspace).stdout
    for f in ["baseline_report.md", "memory/v0.json", "README.md"]:
        assert f in shown, f
    assert git("status", "--porcelain", cwd=workspace).stdout == ""
    md = (workspace / "baseline_report.md").read_text()
    for section in ["## Kernel", "## Test", "## Reference", "## Wiki paths used", "## Configuration",
                    "## Correctness", "## Performance"]:
        assert section in md, section
    assert "Max rel_err" in md and "| 8x33 | 1 | PASS |" in md
    specs = json.loads((workspace / "specs.json").read_text())
    for e in specs["specs"]:
        if not e.get("unknown"):
            assert e["citation"] in md
    assert run_kgo("iterate", "verify", "--workspace", workspace).rc == 0
    r = run_kgo("baseline", "--workspace", workspace, *CPU, "--quiet")
    assert r.rc == 17 and "already decided" in r.err


@pytest.mark.skipif(has_gpu(), reason="checks the refusal on a machine without a GPU")
def test_baseline_without_gpu_needs_explicit_cpu(workspace):
    r = run_kgo("baseline", "--workspace", workspace)
    assert r.rc == 23 and "--device cpu" in r.err
    assert not (workspace / "memory" / "v0.json").exists()


def test_baseline_refuses_after_iterations(workspace):
    assert run_kgo("memory", "create", "--workspace", workspace).rc == 0
    assert run_kgo("memory", "create", "--workspace", workspace).rc == 0
    r = run_kgo("baseline", "--workspace", workspace, *CPU)
    assert r.rc == 17 and "Stage 1" in r.err


@pytest.mark.skipif(not has_gpu(), reason="the full baseline times the kernel on a GPU")
def test_gpu_baseline(workspace):
    assert run_kgo("spec", "auto", "--workspace", workspace).rc == 0
    r = run_kgo("baseline", "--workspace", workspace, "--json", timeout=1800)
    assert r.rc == 0, r.err
    j = r.json()
    validate(j, "cli/baseline.schema.json")
    rec = record(workspace)
    assert rec["performance"]["stamp"]["kernel_sha256"] == sha256(workspace / "kernel.py")
    assert (workspace / "benchmark.md").is_file()
    assert "V0: baseline kernel" in subjects(workspace)


@pytest.mark.skipif(not has_gpu(), reason="the baseline times the kernel on a GPU")
def test_a_forged_timer_below_the_physical_floor_is_refused_by_the_baseline(workspace):
    """The baseline's bench holds the time to the registered bandwidth, as kgo bench does: samples divided by 3 put
    the example softmax below bytes / bandwidth at 1024² (about 1.3 us against 1.75 on an H200)."""
    assert run_kgo("spec", "auto", "--workspace", workspace).rc == 0
    (workspace / "kernel.py").write_text(forged_timer(3))
    r = run_kgo("baseline", "--workspace", workspace, timeout=1800)
    assert r.rc == 1 and "baseline NOT committed: bench REWARD_HACK" in r.err, (r.rc, r.out[-800:], r.err[-800:])
    assert "below the physical floor" in r.err and "<gpu-wiki>/" in r.err
    assert not any(s.startswith("V0") for s in subjects(workspace))
    assert record(workspace)["quality_gate"]["result"] == "PENDING"
