"""A workspace handed over by someone else: links, special files, planted journals and damaged git
must never make kgo read or write outside the workspace, commit what it did not write, hang, or
change anything before it refuses."""
import json
import os
import shutil
import signal

import pytest

from conftest import git, run_kgo, validate
from iteration_helpers import fsck_clean, kgo_ok

UNSAFE = 24
GIT_ERROR = 10
EPOCH = {"SOURCE_DATE_EPOCH": "1800000000"}


def head(ws):
    return git("rev-parse", "HEAD", cwd=ws).stdout.strip()


def two_records(ws):
    kgo_ok("memory", "create", "--workspace", ws)
    kgo_ok("memory", "create", "--workspace", ws)


def tree_bytes(root):
    out = {}
    for dirpath, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for n in names:
            p = os.path.join(dirpath, n)
            if os.path.isfile(p) and not os.path.islink(p):
                with open(p, "rb") as f:
                    out[os.path.relpath(p, root)] = f.read()
    return out


def test_kgo_folder_as_a_link_is_refused_and_its_target_untouched(workspace, tmp_path):
    two_records(workspace)
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "txn").mkdir(parents=True)
    (elsewhere / "txn" / "precious").write_text("keep me")
    shutil.rmtree(workspace / ".kgo", ignore_errors=True)
    os.symlink(elsewhere, workspace / ".kgo")
    before = head(workspace)
    r = run_kgo("memory", "mask", "v1", "--workspace", workspace)
    assert r.rc == UNSAFE, r.err
    assert ".kgo" in r.err and "symbolic link" in r.err
    assert (elsewhere / "txn" / "precious").read_text() == "keep me"
    assert head(workspace) == before


def test_readme_as_a_link_to_a_secret_is_never_committed(workspace, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET 1234\n")
    (workspace / "README.md").unlink()
    os.symlink(secret, workspace / "README.md")
    before = head(workspace)
    for args in (["spec", "auto"], ["roofline", "--flops", "2*4096*4096", "--bytes", "8*4096*4096"], ["status"]):
        r = run_kgo(*args, "--workspace", workspace)
        assert r.rc == UNSAFE, (args, r.rc, r.err)
        assert "README.md" in r.err and "git checkout -- README.md" in r.err
    assert head(workspace) == before
    assert "TOP SECRET" not in git("log", "-p", "--all", cwd=workspace).stdout
    assert secret.read_text() == "TOP SECRET 1234\n"


def test_memory_folder_as_a_link_gets_no_records(workspace, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.rmtree(workspace / "memory")
    os.symlink(outside, workspace / "memory")
    r = run_kgo("memory", "create", "--workspace", workspace)
    assert r.rc == UNSAFE and "memory" in r.err
    assert list(outside.iterdir()) == []


def test_record_as_a_link_is_refused_by_readers(workspace, tmp_path):
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps({"secret": True}))
    os.symlink(secret, workspace / "memory" / "v5.json")
    for args in (["status"], ["memory", "list"], ["iterate", "verify"]):
        r = run_kgo(*args, "--workspace", workspace)
        assert r.rc == UNSAFE and "memory/v5.json" in r.err, (args, r.rc, r.err)


def test_kernel_path_outside_the_workspace_is_refused_on_load(workspace, tmp_path):
    (tmp_path / "victim.py").write_text("victim\n")
    original = (workspace / "kgo.json").read_text()
    cfg = json.loads(original)
    cfg["kernel_file"] = "../victim.py"
    (workspace / "kgo.json").write_text(json.dumps(cfg))
    before = head(workspace)
    for args in (["status"], ["iterate", "accept", "v0"]):
        r = run_kgo(*args, "--workspace", workspace)
        assert r.rc == UNSAFE and "kgo.json" in r.err and "../victim.py" in r.err, (args, r.rc, r.err)
    assert not (workspace / ".kgo" / "journal.json").exists()
    (workspace / "kgo.json").write_text(original)
    assert run_kgo("status", "--workspace", workspace).rc == 0
    assert head(workspace) == before and (tmp_path / "victim.py").read_text() == "victim\n"


def plant_journal(ws, path, staged, content=b"stolen\n"):
    import hashlib
    (ws / ".kgo" / "txn").mkdir(parents=True, exist_ok=True)
    st = os.lstat(ws / ".kgo")
    if staged and "/" not in staged:
        (ws / ".kgo" / "txn" / staged).write_bytes(content)
    journal = {"kgo_journal": 2, "owner": {"dev": st.st_dev, "ino": st.st_ino}, "op": "planted",
               "base": head(ws), "branch": "refs/heads/main",
               "signature": {"name": "x", "email": "x@x", "time": 1800000000},
               "commits": [{"message": "planted", "record_commit_of_previous": [],
                            "files": [{"path": path, "staged": staged, "write_worktree": True,
                                       "sha256": hashlib.sha256(content).hexdigest()}]}]}
    (ws / ".kgo" / "journal.json").write_text(json.dumps(journal))


@pytest.mark.parametrize("path,staged", [("memory/v9.json", "../../../secret.txt"),
                                         ("../outside.txt", "c0f0"),
                                         (".git/hooks/post-commit", "c0f0"),
                                         ("src/deep/file.py", "c0f0")])
def test_planted_journal_is_refused_by_status_and_left_alone(workspace, tmp_path, path, staged):
    (tmp_path / "secret.txt").write_text("secret\n")
    plant_journal(workspace, path, staged)
    before = head(workspace)
    r = run_kgo("status", "--workspace", workspace)
    assert r.rc == UNSAFE, r.err
    assert "journal.json" in r.err and "rm -r" in r.err
    assert head(workspace) == before
    assert (workspace / ".kgo" / "journal.json").exists()
    assert not (tmp_path / "ws" / "outside.txt").exists()
    assert "secret" not in git("log", "-p", cwd=workspace).stdout


def interrupted(ws):
    """Leaves a real journal of `memory mask v1` in `ws`, killed just after its commit point."""
    two_records(ws)
    trace = run_kgo("memory", "mask", "v1", "--workspace", ws, env={**EPOCH, "KGO_FAULT_TRACE": "1"})
    assert trace.rc == 0
    kgo_ok("memory", "unmask", "v1", "--workspace", ws)
    labels = [l.split(" ", 2)[2] for l in trace.err.splitlines() if l.startswith("kgo-checkpoint ")]
    # The checkpoints of the journal's own write come last before the first git object.
    at = labels.index("git: blob written")
    r = run_kgo("memory", "mask", "v1", "--workspace", ws, env={**EPOCH, "KGO_FAULT_AT": str(at)})
    assert r.rc == -signal.SIGKILL and (ws / ".kgo" / "journal.json").exists()


def test_journal_of_a_copied_workspace_is_not_applied(workspace, tmp_path):
    interrupted(workspace)
    copy = tmp_path / "copy"
    shutil.copytree(workspace, copy, symlinks=True)
    before = head(copy)
    r = run_kgo("status", "--workspace", copy)
    assert r.rc == UNSAFE and "another copy" in r.err, r.err
    assert head(copy) == before and (copy / ".kgo" / "journal.json").exists()
    # Where kgo wrote it, the same journal is rolled forward, announced on stderr and in --json.
    r = run_kgo("status", "--json", "--workspace", workspace)
    assert r.rc == 0, r.err
    assert "finished an interrupted 'mask v1'" in (r.out + r.err)
    out = r.json()
    validate(out, "cli/status.schema.json")
    assert out["recovered"]["op"] == "mask v1" and out["recovered"]["outcome"] == "completed"
    assert head(workspace) == out["recovered"]["commits"][-1]


def test_fifo_in_memory_is_skipped_not_opened(workspace):
    two_records(workspace)
    os.mkfifo(workspace / "memory" / "v30.json")
    for args in (["status"], ["memory", "list"], ["iterate", "verify"], ["memory", "summary"]):
        r = run_kgo(*args, "--workspace", workspace, timeout=30)
        assert r.rc in (0, 1), (args, r.rc, r.err)
        assert "v30.json" in r.err and "not a regular file" in r.err, (args, r.err)


def damage_ref(ws):
    (ws / ".git" / "refs" / "heads" / "main").unlink()
    packed = ws / ".git" / "packed-refs"
    if packed.exists():
        packed.write_text("".join(l for l in packed.read_text().splitlines(True) if "refs/heads/main" not in l))


def damage_head(ws):
    (ws / ".git" / "HEAD").unlink()


def damage_lock(ws):
    (ws / ".git" / "index.lock").write_text("")


def damage_git_gone(ws):
    shutil.rmtree(ws / ".git")


def damage_tree(ws):
    # A loose object of the tip (spec auto's specs.json; kgo init's own objects are packed).
    blob = git("rev-parse", "HEAD:specs.json", cwd=ws).stdout.strip()
    p = ws / ".git" / "objects" / blob[:2] / blob[2:]
    p.chmod(0o644)
    p.unlink()


@pytest.mark.parametrize("damage", [damage_ref, damage_head, damage_lock, damage_git_gone, damage_tree])
@pytest.mark.parametrize("command", ["mask", "spec remove", "spec auto"])
def test_damaged_repository_changes_nothing(workspace, damage, command):
    two_records(workspace)
    kgo_ok("spec", "auto", "--workspace", workspace)
    kgo_ok("spec", "remove", "hbm_bandwidth", "--workspace", workspace)
    present = [e["metric"] for e in json.loads((workspace / "specs.json").read_text())["specs"] if not e["unknown"]]
    args = {"mask": ["memory", "mask", "v1"], "spec remove": ["spec", "remove", present[0]],
            "spec auto": ["spec", "auto"]}[command]
    before = tree_bytes(workspace)
    damage(workspace)
    r = run_kgo(*args, "--workspace", workspace)
    assert r.rc == GIT_ERROR, (damage.__name__, r.rc, r.err)
    after = tree_bytes(workspace)
    changed = {k for k in set(before) | set(after) if not k.startswith(".kgo") and before.get(k) != after.get(k)}
    assert not changed, (damage.__name__, changed)


def test_deeply_nested_record_is_refused_not_crashing(workspace):
    kgo_ok("memory", "create", "--workspace", workspace)
    (workspace / "memory" / "v1.json").write_text("[" * 1_000_000 + "]" * 1_000_000)
    r = run_kgo("memory", "read", "v1", "--workspace", workspace)
    assert r.rc == 16 and "128 levels" in r.err, (r.rc, r.err)
    for args in (["status"], ["memory", "list"], ["iterate", "verify"]):
        r = run_kgo(*args, "--workspace", workspace)
        assert r.rc in (0, 1, 17), (args, r.rc, r.err)  # a clean answer or refusal, never a crash


@pytest.mark.parametrize("flops,bytes_", [("2^1000", "8"), ("1e25", "8"), ("8", "1e-30"), ("8", "2.5")])
def test_absurd_roofline_counts_are_refused(workspace, flops, bytes_):
    kgo_ok("spec", "auto", "--workspace", workspace)
    before = head(workspace)
    r = run_kgo("roofline", "--flops", flops, "--bytes", bytes_, "--workspace", workspace)
    assert r.rc == 22, (flops, bytes_, r.rc, r.err)
    assert head(workspace) == before


@pytest.mark.parametrize("content,why", [(b"", "empty"), (b"import x\n\0\0\0binary", "NUL"),
                                         (b"x = '\xff\xfe'\n", "UTF-8"), (b"#" * (4 * 1024 * 1024 + 1), "4 MiB")])
def test_kernels_that_are_not_source_are_refused(tmp_path, content, why):
    kernel = tmp_path / "k.py"
    kernel.write_bytes(content)
    r = run_kgo("init", "bad", kernel, "--platform", "H100", "--dir", tmp_path)
    assert r.rc == 5 and why in r.err, (r.rc, r.err)
    assert not (tmp_path / "kernel_opt_bad").exists()


def test_non_ascii_name_gets_a_utf8_message(tmp_path, kernel_file):
    import subprocess
    from conftest import KGO_BIN
    r = subprocess.run([KGO_BIN, "init", b"caf\xc3\xa9", str(kernel_file), "--platform", "H100", "--dir", str(tmp_path)],
                       capture_output=True)
    assert r.returncode == 4
    r.stderr.decode("utf-8")  # raises if not valid UTF-8
    r = subprocess.run([KGO_BIN, "init", b"bad\xff", str(kernel_file), "--platform", "H100", "--dir", str(tmp_path)],
                       capture_output=True)
    assert r.returncode == 4 and b"\\xFF" in r.stderr
    r.stderr.decode("utf-8")


def test_replaced_workspaces_get_unique_readable_names(tmp_path, kernel_file):
    for _ in range(4):
        r = run_kgo("init", "r", kernel_file, "--platform", "H100", "--dir", tmp_path, "--force",
                    env={"SOURCE_DATE_EPOCH": "1800000000"})
        assert r.rc == 0, r.err
    names = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("kernel_opt_r."))
    assert len(names) == 3 and len(set(names)) == 3
    assert all(".1" not in n.split("replaced-")[1][19:] for n in names), names


def test_parallel_init_losers_exit_6_and_stale_temp_folders_are_swept(tmp_path, kernel_file):
    import subprocess
    from conftest import KGO_BIN
    stale = tmp_path / ".kernel_opt_p.tmp-999999999-abcdef"
    stale.mkdir()
    env = dict(os.environ, KGO_DATA_DIR=str(__import__("conftest").SOURCE_DIR))
    procs = [subprocess.Popen([KGO_BIN, "init", "p", str(kernel_file), "--platform", "H100", "--dir", str(tmp_path)],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for _ in range(6)]
    codes = [p.wait() for p in procs]
    assert codes.count(0) == 1 and sorted(codes)[1:] == [6] * 5, codes
    assert not stale.exists()
    assert [p.name for p in tmp_path.iterdir() if ".tmp" in p.name] == []


def accepted(ws):
    kgo_ok("memory", "create", "--workspace", ws)
    from iteration_helpers import stamp
    stamp(ws, "v0", "PASS", 100.0, 800.0)
    kgo_ok("iterate", "accept", "v0", "--workspace", ws)


def test_decided_records_are_final(workspace):
    accepted(workspace)
    kgo_ok("memory", "create", "--workspace", workspace)
    before = head(workspace)
    r = run_kgo("memory", "update", "v0", "--set", "optimization.hypothesis=rewritten", "--workspace", workspace)
    assert r.rc == 17 and "final" in r.err
    r = run_kgo("memory", "append", "v0", "search_log", '"x"', "--workspace", workspace)
    assert r.rc == 17 and "final" in r.err
    # A hand edit: verify names the field, and no commit sweeps it in.
    rec = json.loads((workspace / "memory" / "v0.json").read_text())
    rec["performance"]["latency_us"] = 1.0
    (workspace / "memory" / "v0.json").write_text(json.dumps(rec, indent=2) + "\n")
    v = run_kgo("iterate", "verify", "--workspace", workspace, "--json")
    assert v.rc != 0 and any("performance.latency_us" in p for p in v.json()["problems"]), v.out
    for args in (["memory", "mask", "v1"], ["restart", "--seed", "1"], ["spec", "auto"]):
        r = run_kgo(*args, "--workspace", workspace)
        assert r.rc == 17 and "performance.latency_us" in r.err and "git checkout -- memory/v0.json" in r.err, \
            (args, r.rc, r.err)
    assert head(workspace) == before
    git("checkout", "--", "memory/v0.json", cwd=workspace)
    kgo_ok("memory", "mask", "v1", "--workspace", workspace)


def decided_findings(ws):
    r = run_kgo("audit", "--json", "--workspace", ws)
    out = r.json()
    validate(out, "cli/audit.schema.json")
    return r.rc, [f for f in out["findings"] if f["kind"] == "decided_record_edited"]


def test_audit_names_a_decided_record_edited_after_its_decision(workspace):
    two_records(workspace)
    kgo_ok("iterate", "reject", "v1", "--reason", "slower", "--workspace", workspace)
    decision = git("log", "-1", "--format=%H", "--", "memory/v1.json", cwd=workspace).stdout.strip()
    assert decided_findings(workspace) == (0, [])
    path = workspace / "memory" / "v1.json"
    decided = path.read_text()
    rec = json.loads(decided)
    rec["optimization"]["hypothesis"] = "it was faster after all"
    path.write_text(json.dumps(rec, indent=2) + "\n")
    # Only in the work tree: named with the decision commit and the way back.
    rc, found = decided_findings(workspace)
    assert rc == 19 and len(found) == 1, found
    f = found[0]
    assert f["file"] == "memory/v1.json" and f["decision_commit"] == decision and "commit" not in f
    assert "optimization.hypothesis" in f["reason"] and "git checkout -- memory/v1.json" in f["reason"]
    # Committed with plain git: also named with the commit that holds the edit.
    git("-c", "user.name=a", "-c", "user.email=a@a", "commit", "-qam", "tidy up", cwd=workspace)
    edit = head(workspace)
    rc, found = decided_findings(workspace)
    assert rc == 19 and [(x["decision_commit"], x.get("commit")) for x in found] == [(decision, edit)], found
    assert decision[:12] in found[0]["reason"] and edit[:12] in found[0]["reason"]
    v = run_kgo("iterate", "verify", "--workspace", workspace, "--json")
    assert v.rc != 0 and any(edit[:12] in p for p in v.json()["problems"]), v.out
    # Restored and committed, then kgo's own bookkeeping (mask) on top: clean again.
    path.write_text(decided)
    git("-c", "user.name=a", "-c", "user.email=a@a", "commit", "-qam", "restore v1", cwd=workspace)
    kgo_ok("memory", "mask", "v1", "--workspace", workspace)
    assert decided_findings(workspace) == (0, [])
    # Deleting a decided record is an edit too.
    git("-c", "user.name=a", "-c", "user.email=a@a", "rm", "-q", "memory/v1.json", cwd=workspace)
    git("-c", "user.name=a", "-c", "user.email=a@a", "commit", "-qm", "drop v1", cwd=workspace)
    rc, found = decided_findings(workspace)
    assert rc == 19 and found[0]["reason"].count("(deleted)") == 1 and found[0]["commit"] == head(workspace)


@pytest.mark.parametrize("args,schema", [(["memory", "list"], "cli/memory.schema.json"),
                                         (["memory", "create"], "cli/memory.schema.json"),
                                         (["plan", "new"], "cli/plan.schema.json"),
                                         (["spec", "auto"], "cli/spec.schema.json"),
                                         (["iterate", "verify"], "cli/iterate.schema.json"),
                                         (["audit"], "cli/audit.schema.json"),
                                         (["memory", "read", "v99"], "cli/error.schema.json")])
def test_every_command_reports_the_roll_forward_in_json(workspace, args, schema):
    interrupted(workspace)
    r = run_kgo(*args, "--json", "--workspace", workspace, env=EPOCH)
    out = r.json()
    validate(out, schema)
    assert "finished an interrupted 'mask v1'" in (r.out + r.err), r.err
    assert out["recovered"]["op"] == "mask v1" and out["recovered"]["outcome"] == "completed", out
    [commit] = out["recovered"]["commits"]
    assert git("log", "-1", "--format=%s", commit, cwd=workspace).stdout.strip() == "memory: mask v1"
    # Nothing left to finish: the next command carries no "recovered".
    assert "recovered" not in run_kgo(*args, "--json", "--workspace", workspace, env=EPOCH).json()


def test_every_case_of_the_hostile_list_holds_end_to_end():
    """bench/hostile_workspace.py: every attack of the list, each on a fresh workspace, against this build."""
    import subprocess
    import sys
    from conftest import KGO_BIN, SOURCE_DIR
    from iteration_helpers import STAMP_BIN
    r = subprocess.run([sys.executable, str(SOURCE_DIR / "bench" / "hostile_workspace.py"), "--kgo", KGO_BIN,
                        "--data-dir", str(SOURCE_DIR), "--stamp-tool", STAMP_BIN], capture_output=True, text=True,
                       timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "13/13 cases held" in r.stdout, r.stdout
