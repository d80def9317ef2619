"""Crash safety: SIGKILL kgo at every fault-injection checkpoint (KGO_FAULT_AT=n) and at random
instants of accept, reject, restart, mask, spec auto|remove, roofline, plan new, memory
create|update|append and init --force; after the next kgo command the workspace must pass
git fsck, hold only whole, schema-valid JSON, have records and commits that agree, and be exactly
the state before the operation or exactly the state after it."""
# ctest-cost: 21
import os
import random
import re
import shutil
import signal
import subprocess
import time

import pytest

from conftest import KGO_BIN, SOURCE_DIR, git, make_kernel_file, make_workspace, run_kgo
from iteration_helpers import accepted_v0, fsck_clean, kgo_ok, pending, records_valid

# A fixed clock makes commit ids reproducible, so "after" can be compared byte for byte.
EPOCH = {"SOURCE_DATE_EPOCH": "1800000000"}


def prepare_accept(ws):
    kgo_ok("memory", "create", "--workspace", ws)
    from iteration_helpers import stamp
    stamp(ws, "v0", "PASS", 100.0, 800.0)
    return ["iterate", "accept", "v0"]


def prepare_reject(ws):
    accepted_v0(ws)
    pending(ws, 1, latency=150.0, gbps=500.0)
    return ["iterate", "reject", "v1", "--reason", "slower than v0"]


def prepare_restart(ws):
    accepted_v0(ws)
    pending(ws, 1, latency=150.0)
    kgo_ok("iterate", "reject", "v1", "--reason", "slower", "--workspace", ws)
    pending(ws, 2, latency=70.0)
    kgo_ok("iterate", "accept", "v2", "--workspace", ws)
    pending(ws, 3, latency=90.0)
    kgo_ok("iterate", "reject", "v3", "--reason", "slower", "--workspace", ws)
    pending(ws, 4, latency=95.0)
    return ["restart", "--seed", "5"]


def prepare_mask(ws):
    for _ in range(3):
        kgo_ok("memory", "create", "--workspace", ws)
    return ["memory", "mask", "v1", "v2"]


def prepare_spec_auto(ws):
    return ["spec", "auto"]


def prepare_spec_remove(ws):
    kgo_ok("spec", "auto", "--workspace", ws)
    return ["spec", "remove", "hbm_bandwidth"]


def prepare_roofline(ws):
    kgo_ok("spec", "auto", "--workspace", ws)
    return ["roofline", "--op", "softmax"]


def prepare_plan_new(ws):
    return ["plan", "new", "--description", "wider tiles"]


def prepare_memory_create(ws):
    kgo_ok("memory", "create", "--workspace", ws)
    return ["memory", "create"]


def prepare_memory_update(ws):
    kgo_ok("memory", "create", "--workspace", ws)
    return ["memory", "update", "v0", "--set", "optimization.hypothesis=wider tiles", "--set",
            "profile_evidence.bottleneck_type=memory_bound"]


def prepare_memory_append(ws):
    kgo_ok("memory", "create", "--workspace", ws)
    return ["memory", "append", "v0", "pitfalls_and_fixes",
            '{"error_type": "accuracy", "error_message": "tail rows wrong", "root_cause": "unmasked loads", '
            '"fix_applied": "mask the tail", "lesson": "mask every partial tile"}']


OPERATIONS = {"accept": prepare_accept, "reject": prepare_reject, "restart": prepare_restart, "mask": prepare_mask,
              "spec_auto": prepare_spec_auto, "spec_remove": prepare_spec_remove, "roofline": prepare_roofline,
              "plan_new": prepare_plan_new, "memory_create": prepare_memory_create,
              "memory_update": prepare_memory_update, "memory_append": prepare_memory_append}
# A one-file work-tree write is a temporary file under .kgo/txn/ renamed into place: no journal, few kill points.
ONE_FILE = {"memory_create", "memory_update", "memory_append"}
MIN_KILL_POINTS = {name: 3 for name in ONE_FILE}


def snapshot(ws):
    files = {}
    for root, dirs, names in os.walk(ws):
        dirs[:] = [d for d in dirs if d not in (".git", ".kgo")]
        for name in names:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                files[os.path.relpath(path, ws)] = f.read()
    return {"head": git("rev-parse", "HEAD", cwd=ws).stdout.strip(), "files": files,
            "status": git("status", "--porcelain", cwd=ws).stdout}


def classify(ws, before, after):
    """'before' or 'after' once the next kgo command has run, else 'corrupt: <why>'."""
    ok, report = fsck_clean(ws, allow_dangling=True)
    if not ok:
        return f"corrupt: git fsck before recovery: {report}"
    r = run_kgo("memory", "list", "--workspace", ws, env=EPOCH)  # the next kgo command
    if r.rc != 0:
        return f"corrupt: the next command failed: {r.err}"
    ok, report = fsck_clean(ws)
    if not ok:
        return f"corrupt: git fsck: {report}"
    try:
        records_valid(ws)
    except AssertionError as e:
        return f"corrupt: {e}"
    verify = run_kgo("iterate", "verify", "--workspace", ws, "--json")
    if verify.rc != 0 or not verify.json()["ok"]:
        return f"corrupt: iterate verify: {verify.out}"
    if (ws / ".kgo" / "journal.json").exists():
        return "corrupt: the journal is still pending"
    state = snapshot(ws)
    if state not in (before, after):
        return "corrupt: the workspace is neither the state before nor after the operation"
    return "after" if state == after else "before"


def check_consistent(ws, before, after, where):
    outcome = classify(ws, before, after)
    assert not outcome.startswith("corrupt"), f"{where}: {outcome}"
    return outcome


@pytest.fixture(scope="module", params=sorted(OPERATIONS))
def operation(request, tmp_path_factory):
    """(name, template workspace in the state before, args, before, after, seconds a normal run takes); made once
    per operation for the tests below, which work on copies of the template and never change it."""
    tmp_path = tmp_path_factory.mktemp(request.param)
    workspace = make_workspace(tmp_path, make_kernel_file(tmp_path))
    args = OPERATIONS[request.param](workspace)
    before = snapshot(workspace)
    reference = tmp_path / "reference"
    shutil.copytree(workspace, reference)
    start = time.monotonic()
    kgo_ok(*args, "--workspace", reference, env=EPOCH)
    seconds = time.monotonic() - start
    after = snapshot(reference)
    assert after != before
    return request.param, workspace, args, before, after, seconds


def test_killed_at_every_checkpoint(operation, tmp_path):
    name, template, args, before, after, _ = operation
    seen = {"before": 0, "after": 0}
    at = 1
    while True:
        ws = tmp_path / f"kill{at}"
        shutil.copytree(template, ws)
        r = run_kgo(*args, "--workspace", ws, env={**EPOCH, "KGO_FAULT_AT": str(at)})
        if r.rc == 0:
            assert snapshot(ws) == after, f"{name}: an uninterrupted run differs from the reference"
            break
        assert r.rc == -signal.SIGKILL, f"{name} at checkpoint {at}: rc {r.rc} {r.err}"
        seen[check_consistent(ws, before, after, f"{name} killed at checkpoint {at}")] += 1
        shutil.rmtree(ws)
        at += 1
        assert at < 300, "runaway checkpoint count"
    assert at > MIN_KILL_POINTS.get(name, 15), f"{name} has only {at - 1} kill points"
    assert seen["before"] > 0 and seen["after"] > 0, seen  # both outcomes occur: kills land on both sides


def test_killed_at_random_instants(operation, tmp_path):
    name, template, args, before, after, seconds = operation
    rng = random.Random(f"kgo-{name}")
    env = dict(os.environ, KGO_DATA_DIR=str(SOURCE_DIR), **EPOCH)
    env.pop("KGO_GPU_WIKI", None)
    for trial in range(12):
        ws = tmp_path / f"random{trial}"
        shutil.copytree(template, ws)
        proc = subprocess.Popen([KGO_BIN, *args, "--workspace", str(ws)], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0, seconds * 1.2))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        check_consistent(ws, before, after, f"{name} killed at random (trial {trial})")
        shutil.rmtree(ws)


def test_interrupted_operation_is_finished_by_the_next_command(operation, tmp_path):
    name, template, args, before, after, _ = operation
    if name in ONE_FILE:
        pytest.skip("a one-file write has no journal: nothing is left to finish")
    ws = tmp_path / "copy"
    shutil.copytree(template, ws)
    trace = run_kgo(*args, "--workspace", ws, env={**EPOCH, "KGO_FAULT_TRACE": "1"})
    labels = [l.split(" ", 2)[2] for l in trace.err.splitlines() if l.startswith("kgo-checkpoint ")]
    # Kill just after the branch moved (work-tree writes: after the journal), before the work tree.
    moved = labels.index("git: branch moved" if "git: branch moved" in labels else "txn: journal written") + 1
    shutil.rmtree(ws)
    shutil.copytree(template, ws)
    r = run_kgo(*args, "--workspace", ws, env={**EPOCH, "KGO_FAULT_AT": str(moved)})
    assert r.rc == -signal.SIGKILL
    assert (ws / ".kgo" / "journal.json").exists()
    assert git("rev-parse", "HEAD", cwd=ws).stdout.strip() == after["head"]
    nxt = run_kgo("memory", "summary", "--workspace", ws, env=EPOCH)
    assert nxt.rc == 0 and f"finished an interrupted '" in nxt.err and "completed" in nxt.err
    assert snapshot(ws) == after


def parent_state(parent):
    """{folder name: its files (not .git)} for every entry of `parent`, hidden ones included."""
    folder = re.compile(re.escape(str(parent.parent).encode()) + rb"/[^/\s]+")
    state = {}
    for entry in sorted(os.listdir(parent)):
        path = parent / entry
        if path.is_dir() and not path.is_symlink():
            files = {}
            for root, dirs, names in os.walk(path):
                dirs[:] = [d for d in dirs if d not in (".git", ".kgo")]
                for name in names:
                    with open(os.path.join(root, name), "rb") as f:  # README names the folder it was made in
                        files[os.path.relpath(os.path.join(root, name), path)] = folder.sub(b"PARENT", f.read())
            state[entry] = files
        else:
            state[entry] = "file"
    return state


@pytest.fixture
def init_force(tmp_path, kernel_file):
    """(template parent folder holding kernel_opt_f with one record, init args, before, after)."""
    template = tmp_path / "template"
    template.mkdir()
    args = ["init", "f", kernel_file, "--platform", "H100", "--dir"]
    kgo_ok(*args, template, env=EPOCH)
    kgo_ok("memory", "create", "--workspace", template / "kernel_opt_f", env=EPOCH)  # the old one differs
    before = parent_state(template)
    reference = tmp_path / "reference"
    shutil.copytree(template, reference, symlinks=True)
    kgo_ok(*args, reference, "--force", env=EPOCH)
    after = parent_state(reference)
    assert after != before and len(after) == 2
    return template, args, before, after


def init_outcome(parent, args, before, after):
    """The next kgo init in the folder finishes or discards a killed one; then `parent` must hold
    exactly the state before or after (besides the workspace that init made)."""
    kgo_ok(*args[:1], "other", *args[2:], parent, env=EPOCH)
    shutil.rmtree(parent / "kernel_opt_other")
    state = parent_state(parent)
    if state == before:
        return "before"
    if state == after:
        ok, report = fsck_clean(parent / "kernel_opt_f")
        return "after" if ok else f"corrupt: git fsck: {report}"
    return f"corrupt: {sorted(state)}"


def test_init_force_killed_at_every_checkpoint(init_force, tmp_path):
    template, args, before, after = init_force
    seen = {"before": 0, "after": 0}
    at = 1
    while True:
        parent = tmp_path / f"kill{at}"
        shutil.copytree(template, parent, symlinks=True)
        r = run_kgo(*args, parent, "--force", env={**EPOCH, "KGO_FAULT_AT": str(at)})
        if r.rc == 0:
            assert parent_state(parent) == after
            break
        assert r.rc == -signal.SIGKILL, f"init --force at checkpoint {at}: rc {r.rc} {r.err}"
        outcome = init_outcome(parent, args, before, after)
        assert not outcome.startswith("corrupt"), f"init --force killed at checkpoint {at}: {outcome}"
        seen[outcome] += 1
        shutil.rmtree(parent)
        at += 1
        assert at < 50, "runaway checkpoint count"
    assert at > 5, f"init --force has only {at - 1} kill points"
    assert seen["before"] > 0 and seen["after"] > 0, seen


def test_init_force_killed_at_random_instants(init_force, tmp_path):
    template, args, before, after = init_force
    rng = random.Random("kgo-init-force")
    env = dict(os.environ, KGO_DATA_DIR=str(SOURCE_DIR), **EPOCH)
    env.pop("KGO_GPU_WIKI", None)
    start = time.monotonic()
    kgo_ok(*args, tmp_path / "reference", "--force", env=EPOCH)
    seconds = time.monotonic() - start
    for trial in range(12):
        parent = tmp_path / f"random{trial}"
        shutil.copytree(template, parent, symlinks=True)
        proc = subprocess.Popen([KGO_BIN, *map(str, args), str(parent), "--force"], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0, seconds * 1.2))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        outcome = init_outcome(parent, args, before, after)
        assert not outcome.startswith("corrupt"), f"init --force killed at random (trial {trial}): {outcome}"
        shutil.rmtree(parent)
