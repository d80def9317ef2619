#!/usr/bin/env python3
"""Random SIGKILLs against every committing kgo command, counted: for each operation of
tests/cli/test_iterate_faults.py (accept, reject, restart, mask, spec auto|remove, roofline, plan new,
memory create|update|append) and init --force, `--kills` runs are killed at a random instant within
1.2x the operation's own duration; after the next kgo command each workspace is classified as the
state before, the state after, or corrupt (git fsck, schema-valid records, iterate verify, no stray
files, byte-for-byte state; the test file's `classify`).

  python3 bench/txn_kill_campaign.py [--kills 20] [--only NAME ...] [--markdown FILE]

KGO_BIN / KGO_DATA_DIR pick the kgo under test (an older build gives the "before" figures).
CPU only. Exits 1 when any run ended corrupt.
"""
import argparse
import os
import pathlib
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[1]
os.environ.setdefault("KGO_SOURCE_DIR", str(SOURCE_DIR))
sys.path.insert(0, str(SOURCE_DIR / "tests" / "cli"))

import test_iterate_faults as F  # noqa: E402  (the operations and the classifier of the crash tests)
from conftest import KGO_BIN, run_kgo  # noqa: E402


def kill_at_random(args, cwd_args, seconds, rng):
    env = dict(os.environ, **F.EPOCH)
    env.setdefault("KGO_DATA_DIR", str(SOURCE_DIR))
    env.pop("KGO_GPU_WIKI", None)
    proc = subprocess.Popen([KGO_BIN, *map(str, args), *map(str, cwd_args)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(rng.uniform(0, seconds * 1.2))
    finished = proc.poll() is not None
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return finished


def new_workspace(root, kernel):
    parent = root / "ws"
    parent.mkdir()
    r = run_kgo("init", "softmax", kernel, "--platform", "H100", "--dir", parent, "--shape", "4096x4096",
                "--reference", SOURCE_DIR / "templates" / "ops" / "softmax" / "ref.py")
    assert r.rc == 0, r.err
    return parent / "kernel_opt_softmax"


def campaign_operation(name, kills, root, kernel):
    ws = new_workspace(root, kernel)
    args = F.OPERATIONS[name](ws)
    before = F.snapshot(ws)
    reference = root / "reference"
    shutil.copytree(ws, reference)
    start = time.monotonic()
    F.kgo_ok(*args, "--workspace", reference, env=F.EPOCH)
    seconds = time.monotonic() - start
    after = F.snapshot(reference)
    rng = random.Random(f"campaign-{name}")
    counts = {"before": 0, "after": 0, "finished": 0, "corrupt": 0, "why": []}
    for trial in range(kills):
        copy = root / f"k{trial}"
        shutil.copytree(ws, copy)
        counts["finished"] += kill_at_random(args, ["--workspace", copy], seconds, rng)
        outcome = F.classify(copy, before, after)
        key = "corrupt" if outcome.startswith("corrupt") else outcome
        counts[key] += 1
        if key == "corrupt":
            counts["why"].append(outcome[:160])
        shutil.rmtree(copy)
    return seconds, counts


def campaign_init_force(kills, root, kernel):
    template = root / "template"
    template.mkdir()
    args = ["init", "f", kernel, "--platform", "H100", "--dir"]
    F.kgo_ok(*args, template, env=F.EPOCH)
    F.kgo_ok("memory", "create", "--workspace", template / "kernel_opt_f", env=F.EPOCH)
    before = F.parent_state(template)
    reference = root / "reference"
    shutil.copytree(template, reference, symlinks=True)
    start = time.monotonic()
    F.kgo_ok(*args, reference, "--force", env=F.EPOCH)
    seconds = time.monotonic() - start
    after = F.parent_state(reference)
    rng = random.Random("campaign-init-force")
    counts = {"before": 0, "after": 0, "finished": 0, "corrupt": 0, "why": []}
    for trial in range(kills):
        parent = root / f"k{trial}"
        shutil.copytree(template, parent, symlinks=True)
        counts["finished"] += kill_at_random(args + [parent, "--force"], [], seconds, rng)
        try:
            outcome = F.init_outcome(parent, args, before, after)
        except AssertionError as e:
            outcome = f"corrupt: the next kgo init failed: {e}"
        key = "corrupt" if outcome.startswith("corrupt") else outcome
        counts[key] += 1
        if key == "corrupt":
            counts["why"].append(outcome[:160])
        shutil.rmtree(parent)
    return seconds, counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--only", nargs="*", help="operation names (default: all, and init_force)")
    ap.add_argument("--markdown", help="also write the table to this file")
    a = ap.parse_args()
    names = a.only or [*sorted(F.OPERATIONS), "init_force"]
    kernel_dir = pathlib.Path(tempfile.mkdtemp(prefix="kgo-campaign-"))
    kernel = kernel_dir / "kernel.py"
    kernel.write_text((SOURCE_DIR / "examples" / "softmax" / "kernel.py").read_text())
    rows, corrupt, total = [], 0, 0
    for name in names:
        root = pathlib.Path(tempfile.mkdtemp(prefix=f"kgo-campaign-{name}-"))
        try:
            if name == "init_force":
                seconds, c = campaign_init_force(a.kills, root, kernel)
            else:
                seconds, c = campaign_operation(name, a.kills, root, kernel)
        finally:
            shutil.rmtree(root, ignore_errors=True)
        corrupt += c["corrupt"]
        total += a.kills
        rows.append(f"| {name} | {seconds * 1000:.0f} | {a.kills} | {c['before']} | {c['after']} | {c['finished']} | "
                    f"{c['corrupt']} | {'; '.join(sorted(set(c['why'])))[:300]} |")
        print(rows[-1], flush=True)
    shutil.rmtree(kernel_dir, ignore_errors=True)
    table = "\n".join(["| operation | run (ms) | kills | ended before | ended after | of which had already exited | corrupt | why |",
                       "|---|---|---|---|---|---|---|---|", *rows])
    summary = f"{total} random SIGKILLs, {corrupt} corrupt workspaces (kgo: {KGO_BIN})"
    print(f"\n{table}\n\n{summary}")
    if a.markdown:
        pathlib.Path(a.markdown).write_text(table + "\n\n" + summary + "\n")
    return 1 if corrupt else 0


if __name__ == "__main__":
    sys.exit(main())
