#!/usr/bin/env python3
"""The hostile-workspace attacks, end to end, against one kgo binary: each case builds a
fresh workspace with that binary, plants the attack, runs the command a victim would run and says
whether the workspace held (refused or ignored the attack, changed nothing it should not) or not.

  python3 bench/hostile_workspace.py [--kgo build/cli/kgo] [--data-dir .] [--stamp-tool T] [--markdown FILE]

Prints one row per case (case, command, exit status, verdict, what was seen); exits 1 when any case
did not hold. With KGO_BIN/KGO_DATA_DIR of an older kgo it shows how that one behaved (the "before"
column of evidence/hostile-workspace-*.md). CPU only: no GPU, no harness runs.
"""
import argparse
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[1]
TIMEOUT = 15


class Kgo:
    def __init__(self, binary, data_dir, stamp_tool):
        self.binary, self.data_dir, self.stamp_tool = str(binary), str(data_dir), str(stamp_tool)

    def __call__(self, *args, timeout=TIMEOUT, stdout=False):
        """(exit status or "hang", the last line of stderr, or stdout when asked)."""
        env = dict(os.environ, KGO_DATA_DIR=self.data_dir, SOURCE_DATE_EPOCH="1800000000",
                   KGO_EXPERIENCE_DIR=tempfile.gettempdir() + "/kgo-hostile-experience")
        env.pop("KGO_GPU_WIKI", None)
        try:
            p = subprocess.run([self.binary, *map(str, args)], env=env, capture_output=True, text=True,
                               timeout=timeout)
            lines = p.stderr.strip().splitlines()
            return p.returncode, p.stdout if stdout else (lines[-1] if lines else "")
        except subprocess.TimeoutExpired:
            return "hang", f"still running after {timeout} s (killed)"


def git(ws, *args):
    return subprocess.run(["git", *args], cwd=ws, capture_output=True, text=True)


def head(ws):
    return git(ws, "rev-parse", "HEAD").stdout.strip()


def files(ws):
    out = {}
    for root, dirs, names in os.walk(ws):
        dirs[:] = [d for d in dirs if d not in (".git", ".kgo")]
        for n in names:
            p = os.path.join(root, n)
            if os.path.isfile(p) and not os.path.islink(p):
                out[os.path.relpath(p, ws)] = hashlib.sha256(open(p, "rb").read()).hexdigest()
    return out


def new_workspace(kgo, root):
    kernel = SOURCE_DIR / "examples" / "softmax" / "kernel.py"
    rc, err = kgo("init", "h", kernel, "--platform", "H100", "--dir", root, "--shape", "4096x4096",
                  "--reference", SOURCE_DIR / "templates" / "ops" / "softmax" / "ref.py")
    assert rc == 0, err
    ws = root / "kernel_opt_h"
    for args in (["memory", "create"], ["memory", "create"], ["spec", "auto"]):
        rc, err = kgo(*args, "--workspace", ws)
        assert rc == 0, (args, err)
    return ws


# Each case: (name, function(kgo, ws, root) -> (command, rc, held, what was seen)).
def kgo_folder_link(kgo, ws, root):
    target = root / "elsewhere"
    (target / "txn").mkdir(parents=True)
    (target / "txn" / "precious").write_text("keep")
    shutil.rmtree(ws / ".kgo", ignore_errors=True)
    os.symlink(target, ws / ".kgo")
    rc, err = kgo("memory", "mask", "v1", "--workspace", ws)
    kept = (target / "txn" / "precious").exists()
    return "memory mask v1", rc, kept and rc != 0, "link target's txn/ kept" if kept else "link target's txn/ deleted"


def planted_journal(kgo, ws, root):
    """A real journal of this kgo (an interrupted `memory mask v1`) whose staged file is made ../../../secret.txt."""
    (root / "secret.txt").write_text("SECRET-JOURNAL\n")
    trace = subprocess.run([kgo.binary, "memory", "mask", "v1", "--workspace", str(ws)], capture_output=True, text=True,
                           env=dict(os.environ, KGO_DATA_DIR=kgo.data_dir, KGO_FAULT_TRACE="1"))
    kgo("memory", "unmask", "v1", "--workspace", ws)
    labels = [l.split(" ", 2)[2] for l in trace.stderr.splitlines() if l.startswith("kgo-checkpoint ")]
    subprocess.run([kgo.binary, "memory", "mask", "v1", "--workspace", str(ws)], capture_output=True,
                   env=dict(os.environ, KGO_DATA_DIR=kgo.data_dir, KGO_FAULT_AT=str(labels.index("git: blob written"))))
    journal = json.loads((ws / ".kgo" / "journal.json").read_text())
    for c in journal["commits"]:
        for f in c["files"]:
            f["staged"] = "../../../secret.txt"
            f["sha256"] = hashlib.sha256(b"SECRET-JOURNAL\n").hexdigest()
    (ws / ".kgo" / "journal.json").write_text(json.dumps(journal))
    rc, err = kgo("status", "--workspace", ws)
    leaked = "SECRET-JOURNAL" in git(ws, "log", "-p").stdout
    return "status", rc, not leaked, "secret committed" if leaked else "journal refused, nothing committed"


def readme_link(kgo, ws, root):
    (root / "secret.txt").write_text("SECRET-README\n")
    (ws / "README.md").unlink()
    os.symlink(root / "secret.txt", ws / "README.md")
    rc, err = kgo("roofline", "--op", "softmax", "--workspace", ws)
    leaked = "SECRET-README" in git(ws, "log", "-p").stdout
    return "roofline --op softmax", rc, not leaked, "secret committed" if leaked else "nothing committed"


def memory_link(kgo, ws, root):
    outside = root / "outside"
    outside.mkdir()
    shutil.rmtree(ws / "memory")
    os.symlink(outside, ws / "memory")
    rc, err = kgo("memory", "create", "--workspace", ws)
    written = list(outside.iterdir())
    return "memory create", rc, not written, f"{len(written)} file(s) written outside" if written else "nothing written outside"


def kernel_escape(kgo, ws, root):
    """A PASS-stamped v0, then kgo.json's kernel_file pointed outside (at a copy with the same text)."""
    kernel = json.loads((ws / "kgo.json").read_text())["kernel_file"]
    (root / "victim.py").write_text((ws / kernel).read_text())
    def stamp():
        return subprocess.run([kgo.stamp_tool, str(ws), "v0", "PASS", "100", "800"], capture_output=True,
                              env=dict(os.environ, KGO_DATA_DIR=kgo.data_dir)).returncode == 0
    cfg_text = (ws / "kgo.json").read_text()
    cfg = json.loads(cfg_text)
    cfg["kernel_file"] = "../victim.py"
    (ws / "kgo.json").write_text(json.dumps(cfg))
    if not stamp():  # a kgo that refuses the path on load: stamp the workspace's own kernel instead
        (ws / "kgo.json").write_text(cfg_text)
        assert stamp()
        (ws / "kgo.json").write_text(json.dumps(cfg))
    rc, err = kgo("iterate", "accept", "v0", "--workspace", ws)
    (ws / "kgo.json").write_text(cfg_text)
    rc2, err2 = kgo("status", "--workspace", ws)
    ok = rc2 == 0 and (root / "victim.py").read_text() == (ws / kernel).read_text()
    return "iterate accept v0; restore kgo.json; status", rc, ok and rc != 0, f"status afterwards exits {rc2}"


def damaged(kind):
    def run(kgo, ws, root):
        before_files, before_head = files(ws), head(ws)
        n_before = len(git(ws, "rev-list", "--all").stdout.split())
        if kind == "ref":
            (ws / ".git" / "refs" / "heads" / "main").unlink(missing_ok=True)
            packed = ws / ".git" / "packed-refs"
            if packed.exists():
                packed.write_text("".join(l for l in packed.read_text().splitlines(True) if "refs/heads/main" not in l))
        elif kind == "HEAD":
            (ws / ".git" / "HEAD").unlink()
        elif kind == "index.lock":
            (ws / ".git" / "index.lock").write_text("")
        elif kind == ".git":
            shutil.rmtree(ws / ".git")
        elif kind == "tree":
            blob = git(ws, "rev-parse", "HEAD:specs.json").stdout.strip()
            p = ws / ".git" / "objects" / blob[:2] / blob[2:]
            p.chmod(0o644)
            p.unlink()
        metric = next(e["metric"] for e in json.loads((ws / "specs.json").read_text())["specs"] if not e["unknown"])
        rc, err = kgo("spec", "remove", metric, "--workspace", ws)
        changed = sorted(k for k in set(before_files) | set(files(ws)) if before_files.get(k) != files(ws).get(k))
        seen = [f"changed {', '.join(changed)}" if changed else "no file changed"]
        held = rc != 0 and not changed
        if kind == "ref":
            roots = git(ws, "rev-list", "--max-parents=0", "--all").stdout.split()
            if len(roots) > 1 or (rc == 0 and len(git(ws, "rev-list", "--all").stdout.split()) <= n_before):
                seen.append("a new root commit drops the history")
                held = False
        if kind == "tree" and rc == 0:
            seen.append("committed onto a broken repository")
        return f"spec remove {metric}", rc, held, "; ".join(seen)
    return run


def fifo_record(kgo, ws, root):
    os.mkfifo(ws / "memory" / "v30.json")
    rc, err = kgo("status", "--workspace", ws)
    return "status", rc, rc != "hang", err if rc == "hang" else "answered"


def deep_record(kgo, ws, root):
    (ws / "memory" / "v1.json").write_text("[" * 1_000_000 + "]" * 1_000_000)
    rc, err = kgo("memory", "read", "v1", "--workspace", ws)
    crashed = rc == "hang" or (isinstance(rc, int) and rc < 0)
    return "memory read v1", rc, not crashed and rc != 0, "crashed" if crashed else "refused"


def decided_edit(kgo, ws, root):
    """v1 rejected by kgo, then edited and committed with plain git."""
    rc, err = kgo("iterate", "reject", "v1", "--reason", "slower", "--workspace", ws)
    assert rc == 0, err
    decided = git(ws, "log", "-1", "--format=%H", "--", "memory/v1.json").stdout.strip()
    rec_path = ws / "memory" / "v1.json"
    rec = json.loads(rec_path.read_text())
    rec["optimization"]["hypothesis"] = "rewritten after the decision"
    rec_path.write_text(json.dumps(rec, indent=2) + "\n")
    git(ws, "-c", "user.name=a", "-c", "user.email=a@a", "commit", "-qam", "tidy")
    edited = head(ws)
    rc, out = kgo("audit", "--json", "--workspace", ws, stdout=True)
    try:
        found = [f for f in json.loads(out)["findings"] if f["kind"] == "decided_record_edited"]
    except (ValueError, KeyError):
        found = []
    named = any(f.get("decision_commit") == decided and f.get("commit") == edited for f in found)
    return "audit", rc, named, "edit reported with both commits" if named else "edit not reported"


CASES = [("`.kgo` is a symlink", kgo_folder_link), ("planted journal stages ../../../secret.txt", planted_journal),
         ("README.md is a symlink to a secret", readme_link), ("memory/ is a symlink", memory_link),
         ("kgo.json kernel_file ../victim.py", kernel_escape), ("refs/heads/main missing", damaged("ref")),
         ("HEAD missing", damaged("HEAD")), ("stale .git/index.lock", damaged("index.lock")),
         (".git gone", damaged(".git")), ("a tree object missing", damaged("tree")),
         ("memory/v30.json is a FIFO", fifo_record), ("record nested 1,000,000 levels", deep_record),
         ("decided record edited and committed after its decision", decided_edit)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kgo", default=os.environ.get("KGO_BIN", str(SOURCE_DIR / "build" / "cli" / "kgo")))
    ap.add_argument("--data-dir", default=os.environ.get("KGO_DATA_DIR", str(SOURCE_DIR)))
    ap.add_argument("--stamp-tool", default=str(pathlib.Path(os.environ.get("KGO_BIN", SOURCE_DIR / "build" / "cli" / "kgo"))
                                                 .parents[1] / "tests" / "iterate" / "kgo_test_stamp"),
                    help="kgo_test_stamp of the same build (writes PASS stamps as kgo check would)")
    ap.add_argument("--markdown", help="also write the table to this file")
    a = ap.parse_args()
    kgo = Kgo(a.kgo, a.data_dir, a.stamp_tool)
    rows, failed = [], 0
    for name, case in CASES:
        root = pathlib.Path(tempfile.mkdtemp(prefix="kgo-hostile-"))
        try:
            ws = new_workspace(kgo, root)
            command, rc, held, seen = case(kgo, ws, root)
        except Exception as e:  # a setup step this kgo cannot do is a result too
            command, rc, held, seen = "-", "-", False, f"error: {e}"
        finally:
            subprocess.run(["chmod", "-R", "u+w", str(root)], capture_output=True)
            shutil.rmtree(root, ignore_errors=True)
        failed += not held
        rows.append(f"| {name} | `kgo {command}` | {rc} | {'held' if held else 'FAILED'} | {seen} |")
    table = "\n".join(["| case | command | exit | verdict | seen |", "|---|---|---|---|---|", *rows])
    print(f"kgo: {a.kgo}\n\n{table}\n\n{len(CASES) - failed}/{len(CASES)} cases held")
    if a.markdown:
        pathlib.Path(a.markdown).write_text(table + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
