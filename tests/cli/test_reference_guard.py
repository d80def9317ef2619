"""Nothing the kernel's author can choose decides a verdict: every verdict path refuses a reference (or stored
problem file) that differs from HEAD or from the baseline's, audit and `iterate verify` name the commit that
changed it, `--allow-op` leaves a trace in the stamp, the commit, the report and the audit, and kgo stamps only
under a key it made itself."""
# ctest-cost: 5
import asyncio
import json
import os
import pathlib
import stat

import pytest

from conftest import KGO_BIN, SOURCE_DIR, attack_kernels, git, run_kgo, validate
from iteration_helpers import accepted_v0, kgo_ok, pending, record, write_plan
from planted import CPU, GOOD, check, wrong

EX = SOURCE_DIR / "examples" / "formats"
# A reference edited to agree with planted.wrong() (softmax normalised by sum + 1).
WRONG_REF = ("import torch\n\n\ndef reference(x: torch.Tensor) -> torch.Tensor:\n"
             "    e = torch.exp(x - x.amax(dim=-1, keepdim=True))\n"
             "    return e / (e.sum(dim=-1, keepdim=True) + 1.0)\n")


def commit(ws, message, *paths):
    git("add", *paths, cwd=ws)
    r = git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", message, cwd=ws)
    assert r.returncode == 0, r.stderr
    return git("rev-parse", "HEAD", cwd=ws).stdout.strip()


def test_every_verdict_path_refuses_an_uncommitted_reference(workspace, tmp_path):
    accepted_v0(workspace)
    write_plan(workspace, 1)
    (workspace / "ref.py").write_text(WRONG_REF)  # agrees with the wrong kernel below
    bad = tmp_path / "wrong.py"
    bad.write_text(wrong())
    head = git("rev-parse", "HEAD", cwd=workspace).stdout
    r = run_kgo("propose", "--workspace", workspace, "--kernel", bad, *CPU, "--trials", "1")
    assert r.rc == 5 and "ref.py differs from its committed version" in r.err, (r.rc, r.out, r.err)
    assert (workspace / "kernel.py").read_text() == GOOD  # refused before the candidate was copied in
    assert git("rev-parse", "HEAD", cwd=workspace).stdout == head
    for args in (["check", *CPU], ["bench", "--device", "cpu", "--size", "8x33"],
                 ["baseline", "--device", "cpu", "--shape", "8x33", "--no-edge-shapes"]):
        r = run_kgo(*args, "--workspace", workspace)
        assert r.rc == 5 and "ref.py differs from its committed version" in r.err, (args, r.rc, r.err)


def test_a_hand_commit_of_the_reference_after_the_baseline_is_named_and_refused(workspace, tmp_path):
    base = accepted_v0(workspace)
    pending(workspace, 1)  # a stamped v1, ready to accept, measured before the reference changed
    (workspace / "ref.py").write_text(WRONG_REF)
    sha = commit(workspace, "tidy the reference", "ref.py")
    r = run_kgo("iterate", "accept", "v1", "--workspace", workspace)
    assert r.rc == 18 and "differs from the baseline's (V0" in r.err and sha[:7] in r.err, r.err
    assert record(workspace, "v1")["quality_gate"]["result"] == "PENDING"
    r = run_kgo("check", "--workspace", workspace, *CPU)
    assert r.rc == 5 and f'{sha[:7]} "tidy the reference"' in r.err and base["commit"][:7] in r.err, r.err
    bad = tmp_path / "wrong.py"
    bad.write_text(wrong())
    r = run_kgo("propose", "--workspace", workspace, "--kernel", bad, *CPU, "--trials", "1")
    assert r.rc == 5 and "differs from the baseline's" in r.err, r.err
    r = run_kgo("iterate", "verify", "--workspace", workspace)
    assert r.rc == 17 and f'ref.py changed after the baseline (V0, commit {base["commit"][:7]}) by commit {sha[:7]} ' \
                          f'"tidy the reference"' in r.out, r.out
    for extra in ([], ["--history"]):
        r = run_kgo("audit", "--workspace", workspace, "--json", *extra)
        validate(r.json(), "cli/audit.schema.json")
        found = [f for f in r.json()["findings"] if f["kind"] == "reference_changed"]
        assert r.rc == 19 and len(found) == 1, (extra, r.json()["findings"])
        assert found[0]["file"] == "ref.py" and found[0]["commit"] == sha and "tidy the reference" in found[0]["reason"]
    # Restoring the baseline's reference clears the refusal (the history still names the commit).
    git("checkout", base["commit"], "--", "ref.py", cwd=workspace)
    commit(workspace, "restore the baseline's ref.py", "ref.py")
    kgo_ok("iterate", "accept", "v1", "--workspace", workspace)


def test_stored_problem_files_and_kgo_json_are_part_of_the_reference(tmp_path):
    parent = tmp_path / "ws"
    parent.mkdir()
    kgo_ok("init", "sol", EX / "sol-execbench" / "kernel.py", "--platform", "H100", "--dir", parent,
           "--reference", EX / "sol-execbench" / "definition.json")
    ws = parent / "kernel_opt_sol"
    wl = ws / "workload.jsonl"
    original = wl.read_text()
    wl.write_text(original.splitlines()[0] + "\n")  # the author keeps only the easy workload
    r = run_kgo("check", "--workspace", ws, "--device", "cpu")
    assert r.rc == 5 and "workload.jsonl differs from its committed version" in r.err, r.err
    wl.write_text(original)
    cfg = json.loads((ws / "kgo.json").read_text())
    (ws / "definition.json").rename(ws / "easy.json")
    cfg["reference"] = "easy.json"
    (ws / "kgo.json").write_text(json.dumps(cfg))
    r = run_kgo("check", "--workspace", ws, "--device", "cpu")
    assert r.rc == 5 and "kgo.json (reference, problem, kernel_file, contract) differ from their committed" in r.err, r.err


def test_allow_op_is_stamped_committed_reported_and_audited(workspace):
    decomposed = attack_kernels() / "hack_decomposed.py"
    (workspace / "kernel.py").write_text(decomposed.read_text())
    allowed = [a for op in ("amax", "sub", "exp", "sum", "div") for a in ("--allow-op", op)]
    kgo_ok("memory", "create", "--workspace", workspace)
    r = check(workspace, *allowed)
    assert r.rc == 0, r.err
    stamp_ = record(workspace, "v0")["correctness"]["stamp"]
    assert stamp_["allowed_ops"] == ["amax", "sub", "exp", "sum", "div"]
    # The MAC covers them: a record that drops them no longer verifies.
    path = workspace / "memory" / "v0.json"
    rec = json.loads(path.read_text())
    saved = path.read_text()
    rec["correctness"]["stamp"]["allowed_ops"] = []
    path.write_text(json.dumps(rec))
    r = run_kgo("iterate", "accept", "v0", "--workspace", workspace)
    assert r.rc == 18 and "keyed MAC" in r.err, r.err
    path.write_text(saved)
    kgo_ok("iterate", "accept", "v0", "--workspace", workspace)
    msg = git("log", "-1", "--format=%B", "HEAD~1", cwd=workspace).stdout
    assert "[--allow-op amax,div,exp,sub,sum]" in msg.splitlines()[0], msg
    assert "allowed ops: amax, div, exp, sub, sum" in msg
    kgo_ok("report", "--workspace", workspace)
    final = (workspace / "report" / "final_report.md").read_text()
    assert "verdict relied on --allow-op amax, div, exp, sub, sum" in final
    r = run_kgo("audit", "--workspace", workspace, "--json")
    validate(r.json(), "cli/audit.schema.json")
    warns = r.json()["warnings"]
    assert [(w["file"], w["allowed_ops"]) for w in warns] == [("memory/v0.json", ["amax", "div", "exp", "sub", "sum"])]
    assert "warning: memory/v0.json: allowed_ops:" in run_kgo("audit", "--workspace", workspace).out


def test_init_makes_the_stamp_key_and_a_workspace_without_one_gets_it_before_the_kernel_runs(workspace):
    key = workspace / ".kgo" / "stamp.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and len(key.read_text()) == 64
    key.unlink()  # a workspace from before this rule
    kgo_ok("memory", "create", "--workspace", workspace)
    assert check(workspace).rc == 0
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    kgo_ok("iterate", "accept", "v0", "--workspace", workspace)


# At import, the kernel replaces the workspace's stamp key with one it knows (it could then forge records).
# The workspace's path is written in (in its cell a kernel sees only copies of its files, never the workspace).
KEY_THIEF = GOOD + '''

import os as _os
_key = _os.path.join("{ws}", ".kgo", "stamp.key")
try:
    try:
        _os.unlink(_key)
    except FileNotFoundError:
        pass
    _os.makedirs(_os.path.dirname(_key), exist_ok=True)
    _fd = _os.open(_key, _os.O_WRONLY | _os.O_CREAT | _os.O_TRUNC, 0o600)
    _os.write(_fd, b"a" * 64)
    _os.close(_fd)
except OSError:
    pass
'''


@pytest.mark.parametrize("fresh", [False, True])
def test_a_key_the_kernel_made_is_never_adopted(workspace, fresh):
    key = workspace / ".kgo" / "stamp.key"
    if fresh:
        key.unlink()  # the kernel's best chance: kgo used to make the key only when it first stamped
    (workspace / "kernel.py").write_text(KEY_THIEF.replace("{ws}", str(workspace)))
    commit(workspace, "the kernel", "kernel.py")
    kgo_ok("memory", "create", "--workspace", workspace)
    r = check(workspace)
    if not key.exists() or key.read_text() != "a" * 64:  # the cell keeps the kernel away from .kgo/
        assert r.rc == 0, r.err
        kgo_ok("iterate", "accept", "v0", "--workspace", workspace)
        return
    assert r.rc == 17 and "stamp.key was replaced while the kernel ran" in r.err, (r.rc, r.err)
    assert record(workspace, "v0").get("correctness") is None


def test_a_key_with_the_wrong_mode_or_a_link_is_refused(workspace, tmp_path):
    key = workspace / ".kgo" / "stamp.key"
    key.chmod(0o644)
    r = check(workspace)
    assert r.rc == 17 and "has mode 0644" in r.err and "rm " in r.err, r.err
    other = tmp_path / "elsewhere.key"
    other.write_text("b" * 64)
    other.chmod(0o600)
    key.unlink()
    key.symlink_to(other)
    r = check(workspace)
    assert r.rc == 17 and "not a regular file" in r.err, r.err


def test_mcp_tools_and_sweep_jobs_refuse_an_edited_reference(workspace, tmp_path):
    (workspace / "ref.py").write_text(WRONG_REF)
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"name": "r", "workspaces": [str(workspace)], "steps": ["check"],
                                "shapes": ["8x33"], "device": "cpu"}))
    d = tmp_path / "s"
    r = run_kgo("sweep", "run", spec, "--dir", d, "--json")
    assert r.rc != 0
    (res,) = [json.loads(f.read_text()) for f in (d / "results").glob("*.json")]
    assert res["status"] == "error" and "ref.py differs from its committed version" in json.dumps(res), res
    pytest.importorskip("mcp")
    from mcp import Client, StdioServerParameters

    async def go():
        env = {"KGO_DATA_DIR": str(SOURCE_DIR), "KGO_HARNESS_DAEMON": "0", "PATH": os.environ["PATH"],
               "HOME": os.environ.get("HOME", "/tmp")}
        params = StdioServerParameters(command=str(pathlib.Path(KGO_BIN).resolve()), args=["mcp"], env=env)
        async with Client(params) as client:
            w = {"workspace": str(workspace), "device": "cpu", "shape": ["8x33"], "no_edge_shapes": True, "trials": 1}
            for tool, args in (("check", w), ("propose", w), ("baseline", {"workspace": str(workspace), "device": "cpu"})):
                out = await client.call_tool(tool, args)
                assert out.is_error and "ref.py differs from its committed version" in out.content[0].text, tool
    asyncio.run(go())
