"""`kgo plan`, `kgo iterate accept|reject|verify` and `kgo restart` on real git workspaces."""
# ctest-cost: 2
import json
import re
import shutil

from conftest import git, run_kgo, validate
from iteration_helpers import (accepted_v0, edit_kernel, fsck_clean, head, kgo_ok, pending, record, records_valid,
                               stamp, subjects, write_plan)

MESSAGE = re.compile(r"^V(\d+): [0-9.]+ (TFLOP/s|GB/s|us)( / [0-9.]+ GB/s)? \| .+ \(bottleneck: .+\)$")


def test_accept_one_commit_with_message_and_true_id(workspace):
    out = accepted_v0(workspace)
    validate(out, "cli/iterate.schema.json")
    assert out["message"] == "V0: 800.0 GB/s | baseline (bottleneck: dram throughput 41% of peak)"
    assert MESSAGE.match(out["message"])
    log = subjects(workspace)
    assert log[1] == out["message"] and log[0].startswith("V0: record the id")
    assert head(workspace, "HEAD~1") == out["commit"] and head(workspace) == out["record_commit"]
    files = git("show", "--name-only", "--format=", out["commit"], cwd=workspace).stdout.split()
    assert sorted(files) == ["README.md", "memory/v0.json"]  # kernel.py unchanged since init: same blob
    tree = git("ls-tree", "-r", "--name-only", out["commit"], cwd=workspace).stdout.split()
    assert {"kernel.py", "memory/v0.json", "README.md"} <= set(tree)
    assert record(workspace, "v0")["git_commit"] == out["commit"]
    committed = json.loads(git("show", f"{out['commit']}:memory/v0.json", cwd=workspace).stdout)
    assert committed["quality_gate"]["result"] == "PASS" and committed["git_commit"] is None
    assert json.loads(git("show", "HEAD:memory/v0.json", cwd=workspace).stdout)["git_commit"] == out["commit"]
    assert git("status", "--porcelain", cwd=workspace).stdout == ""
    assert fsck_clean(workspace)[0]
    readme = (workspace / "README.md").read_text()
    assert "| v0 | PASS | baseline | memory_bound | 100.00 | - | 800.0 | - |" in readme
    verify = kgo_ok("iterate", "verify", "--workspace", workspace, "--json").json()
    validate(verify, "cli/iterate.schema.json")
    assert verify["ok"] and verify["records"] == 1


def test_accept_commits_kernel_plan_record_readme_together(workspace):
    accepted_v0(workspace)
    pending(workspace, 1, latency=80.0, gbps=1000.0)
    out = kgo_ok("iterate", "accept", "v1", "--workspace", workspace, "--json").json()
    files = git("show", "--name-only", "--format=", out["commit"], cwd=workspace).stdout.split()
    assert sorted(files) == ["README.md", "kernel.py", "memory/v1.json", "plans/v1_plan.md"]
    assert out["message"] == "V1: 1000.0 GB/s | vectorized_load (bottleneck: not profiled)"
    assert record(workspace, "v1")["performance"]["comparison_with_previous"]["previous_version"] == "v0"
    assert "-20.0% latency vs v0" in (workspace / "README.md").read_text()


def test_quality_gate_refusals(workspace):
    kgo_ok("memory", "create", "--workspace", workspace)
    log = subjects(workspace)
    r = run_kgo("iterate", "accept", "v0", "--workspace", workspace, "--json")
    assert r.rc == 18 and "no correctness result" in (r.out + r.err)
    validate(r.json(), "cli/error.schema.json")
    stamp(workspace, "v0", "FAIL")
    r = run_kgo("iterate", "accept", "v0", "--workspace", workspace)
    assert r.rc == 18 and "FAIL, not PASS" in r.err
    stamp(workspace, "v0", "PASS")
    edit_kernel(workspace, "edited after its check")
    r = run_kgo("iterate", "accept", "v0", "--workspace", workspace)
    assert r.rc == 18 and "changed after its measurement" in r.err
    stamp(workspace, "v0", "PASS", sha="0" * 64)
    r = run_kgo("iterate", "accept", "v0", "--workspace", workspace)
    assert r.rc == 18 and "measured on another kernel" in r.err
    assert subjects(workspace) == log
    assert record(workspace, "v0")["quality_gate"]["result"] == "PENDING"


def test_a_status_set_by_hand_never_passes(workspace):
    kgo_ok("memory", "create", "--workspace", workspace)
    path = workspace / "memory" / "v0.json"
    rec = json.loads(path.read_text())
    rec["correctness"] = {"status": "PASS", "rel_err": 0, "max_abs_err": 0,
                          "stamp": {"tool": "me", "kernel_sha256": "a" * 64, "at": "2026-01-01T00:00:00Z"}}
    path.write_text(json.dumps(rec))
    assert run_kgo("iterate", "accept", "v0", "--workspace", workspace).rc == 18


def test_a_hand_written_stamp_with_the_right_hash_never_passes(workspace):
    """Copying a real stamp's fields (the right kernel hash, a case) is not enough: the keyed MAC under
    the workspace's .kgo/stamp.key does not verify, and a PASS that names no case proves nothing."""
    kgo_ok("memory", "create", "--workspace", workspace)
    stamp(workspace, "v0", "PASS")
    path = workspace / "memory" / "v0.json"
    rec = json.loads(path.read_text())
    assert (workspace / ".kgo" / "stamp.key").stat().st_mode & 0o777 == 0o600
    rec["correctness"]["rel_err"] = 0.0  # any edit of the measurement breaks the MAC
    path.write_text(json.dumps(rec))
    r = run_kgo("iterate", "accept", "v0", "--workspace", workspace)
    assert r.rc == 18 and "keyed MAC" in r.err
    stamp(workspace, "v0", "PASS")
    (workspace / ".kgo" / "stamp.key").write_text("f" * 64)  # another secret: nothing verifies
    r = run_kgo("iterate", "accept", "v0", "--workspace", workspace)
    assert r.rc == 18 and "keyed MAC" in r.err
    (workspace / ".kgo" / "stamp.key").unlink()
    stamp(workspace, "v0", "PASS", env={"KGO_STAMP_NO_CASES": "1"})
    r = run_kgo("iterate", "accept", "v0", "--workspace", workspace)
    assert r.rc == 18 and "names no case" in r.err
    assert record(workspace, "v0")["quality_gate"]["result"] == "PENDING"


def test_accept_refusals_for_plans_masks_and_decided_records(workspace):
    accepted_v0(workspace)
    assert run_kgo("iterate", "accept", "v0", "--workspace", workspace).rc == 17  # decisions are final
    kgo_ok("memory", "create", "--workspace", workspace)
    edit_kernel(workspace, "v1")
    stamp(workspace, "v1", "PASS", 90.0)
    r = run_kgo("iterate", "accept", "v1", "--workspace", workspace)
    assert r.rc == 21 and "kgo plan new" in r.err
    kgo_ok("plan", "new", "v1", "--workspace", workspace)
    r = run_kgo("iterate", "accept", "v1", "--workspace", workspace)
    assert r.rc == 21 and "does not pass `kgo plan check`" in r.err
    kgo_ok("memory", "mask", "v1", "--workspace", workspace)
    r = run_kgo("iterate", "accept", "v1", "--workspace", workspace)
    assert r.rc == 17 and "masked" in r.err


def test_reject_restores_the_kernel_and_keeps_the_record(workspace):
    v0 = accepted_v0(workspace)
    accepted_kernel = (workspace / "kernel.py").read_text()
    pending(workspace, 1, latency=150.0, gbps=530.0, category="swizzle")
    rejected_kernel = (workspace / "kernel.py").read_text()
    before = subjects(workspace)
    out = kgo_ok("iterate", "reject", "v1", "--reason", "50% slower than v0", "--lesson", "swizzle hurts here",
                 "--workspace", workspace, "--json").json()
    validate(out, "cli/iterate.schema.json")
    assert out["message"] == "V1: rejected | swizzle (reason: 50% slower than v0)"
    assert out["restored_from"] == v0["commit"]
    assert (workspace / "kernel.py").read_text() == accepted_kernel
    assert (workspace / "rejected" / "v1" / "kernel.py").read_text() == rejected_kernel
    rec = record(workspace, "v1")
    assert rec["quality_gate"]["result"] == "FAIL"
    assert rec["quality_gate"]["failure_reason"] == "50% slower than v0"
    assert rec["pitfalls_and_fixes"][-1]["lesson"] == "swizzle hurts here"
    assert rec["correctness"]["status"] == "PASS"  # measurements stay as measured
    assert subjects(workspace) == [out["message"]] + before  # history only grows
    assert git("merge-base", "--is-ancestor", v0["record_commit"], "HEAD", cwd=workspace).returncode == 0
    assert git("status", "--porcelain", cwd=workspace).stdout == ""
    committed = git("show", "HEAD:memory/v1.json", cwd=workspace).stdout
    assert json.loads(committed)["quality_gate"]["result"] == "FAIL"
    assert "| v1 | FAIL: 50% slower than v0 | swizzle |" in (workspace / "README.md").read_text()
    assert run_kgo("iterate", "reject", "v1", "--reason", "again", "--workspace", workspace).rc == 17
    assert run_kgo("iterate", "reject", "v1", "--workspace", workspace).rc == 3  # --reason is required


def test_plan_new_and_check(workspace):
    kgo_ok("memory", "create", "--workspace", workspace)
    kgo_ok("memory", "create", "--workspace", workspace)
    out = kgo_ok("plan", "new", "--workspace", workspace, "--json").json()
    validate(out, "cli/plan.schema.json")
    assert out["version"] == "v1" and out["path"].endswith("plans/v1_plan.md")
    text = (workspace / "plans" / "v1_plan.md").read_text()
    for section in ["Input Evidence", "Search Log", "This Iteration's Action", "Expected Impact", "Risks and Rollback"]:
        assert f"## {section}\n" in text
    assert text.index("[gpu-wiki]") < text.index("[ref-project]") < text.index("[public-web]")
    assert run_kgo("plan", "new", "v1", "--workspace", workspace).rc == 3
    r = run_kgo("plan", "check", "--workspace", workspace, "--json")
    assert r.rc == 21
    check = r.json()
    validate(check, "cli/plan.schema.json")
    assert not check["ok"] and "section 'Expected Impact' is empty" in check["problems"]
    write_plan(workspace, 1, "tiling")
    ok = kgo_ok("plan", "check", "v1", "--workspace", workspace, "--json").json()
    assert ok["ok"] and ok["action_category"] == "tiling" and ok["problems"] == []
    two = text_with_two_actions = (workspace / "plans" / "v1_plan.md").read_text().replace(
        "- description:", "- action_category: swizzle\n- description:")
    (workspace / "plans" / "v1_plan.md").write_text(two)
    r = run_kgo("plan", "check", "v1", "--workspace", workspace)
    assert r.rc == 21 and "names 2 action categories (tiling, swizzle)" in r.out
    assert run_kgo("plan", "check", "v9", "--workspace", workspace).rc == 21


def build_history(ws):
    """v0 accepted (100 us), v1 rejected, v2 accepted (best, 60 us), v3 accepted (70 us), v4 rejected, v5 pending."""
    accepted_v0(ws)
    for n, latency, accept in [(1, 130.0, False), (2, 60.0, True), (3, 70.0, True), (4, 95.0, False), (5, 99.0, None)]:
        pending(ws, n, latency=latency, gbps=1000.0 * 60 / latency)
        if accept:
            kgo_ok("iterate", "accept", f"v{n}", "--workspace", ws)
        elif accept is False:
            kgo_ok("iterate", "reject", f"v{n}", "--reason", "slower", "--workspace", ws)


def test_restart_masks_half_reproducibly(workspace, tmp_path):
    build_history(workspace)
    twin = tmp_path / "twin"
    shutil.copytree(workspace, twin)
    out = kgo_ok("restart", "--seed", "7", "--workspace", workspace, "--json").json()
    validate(out, "cli/restart.schema.json")
    assert out["best"] == "v2"
    assert len(out["masked"]) == 2  # ceil(4 / 2) of v1 v3 v4 v5
    assert "v0" not in out["masked"] and "v2" not in out["masked"]
    assert kgo_ok("restart", "--seed", "7", "--workspace", twin, "--json").json()["masked"] == out["masked"]
    assert out["next_version"] == "v6"
    for v in out["masked"]:
        assert record(workspace, v)["masked"] is True
    note = record(workspace, out["noted_in"])["pitfalls_and_fixes"][-1]
    assert note["error_type"] == "restart"
    assert note["details"]["seed"] == 7 and note["details"]["masked"] == out["masked"]
    assert out["noted_in"] == max(out["kept"], key=lambda v: int(v[1:]))
    assert subjects(workspace)[0] == f"restart: masked {', '.join(out['masked'])} (seed 7); next iteration v6"
    assert kgo_ok("memory", "create", "--workspace", workspace, "--json").json()["version"] == "v6"
    summary = kgo_ok("memory", "summary", "--workspace", workspace, "--json").json()
    assert summary["masked_left_out"] == 2 and summary["best"] == "v2"
    assert kgo_ok("iterate", "verify", "--workspace", workspace, "--json").json()["ok"]
    seeds = {tuple(kgo_ok("restart", "--seed", str(s), "--workspace", copy, "--json").json()["masked"])
             for s, copy in [(s, shutil.copytree(twin, tmp_path / f"s{s}")) for s in range(1, 9)]}
    assert len(seeds) > 1  # the seed decides


def test_restart_with_nothing_to_mask(workspace):
    accepted_v0(workspace)
    r = run_kgo("restart", "--seed", "1", "--workspace", workspace)
    assert r.rc == 17 and "nothing to mask" in r.err


def test_full_loop_every_step_in_git_log(workspace):
    """init, create v0, (stamp PASS), accept, create v1, reject, create v2, accept, mask v1, summary."""
    init = subjects(workspace)
    assert len(init) == 1 and init[0].startswith("init:")
    kgo_ok("memory", "create", "--workspace", workspace)
    stamp(workspace, "v0", "PASS", 100.0, 800.0)
    kgo_ok("iterate", "accept", "v0", "--workspace", workspace)
    assert subjects(workspace)[1].startswith("V0: 800.0 GB/s | baseline")
    pending(workspace, 1, latency=120.0, gbps=700.0, category="swizzle")
    kgo_ok("iterate", "reject", "v1", "--reason", "slower", "--workspace", workspace)
    assert subjects(workspace)[0] == "V1: rejected | swizzle (reason: slower)"
    pending(workspace, 2, latency=80.0, gbps=1000.0)
    kgo_ok("iterate", "accept", "v2", "--workspace", workspace)
    assert subjects(workspace)[1] == "V2: 1000.0 GB/s | vectorized_load (bottleneck: not profiled)"
    kgo_ok("memory", "mask", "v1", "--workspace", workspace)
    assert subjects(workspace)[0] == "memory: mask v1"
    assert len(subjects(workspace)) == 7
    summary = kgo_ok("memory", "summary", "--workspace", workspace, "--json").json()
    assert [r["version"] for r in summary["records"]] == ["v0", "v2"]
    assert summary["best"] == "v2" and summary["masked_left_out"] == 1
    assert summary["records"][1]["git_commit"] == head(workspace, "HEAD~2")
    text = kgo_ok("memory", "summary", "--workspace", workspace).out
    assert "v2 *" in text and "1 masked record left out" in text
    assert git("status", "--porcelain", cwd=workspace).stdout == ""
    assert fsck_clean(workspace)[0]
    records_valid(workspace)
    assert kgo_ok("iterate", "verify", "--workspace", workspace, "--json").json()["ok"]
