"""Evidence is one dated page per run, indexed: every entry under evidence/ is a `<what>-<date>.md` page listed in
evidence/README.md (no folders of raw output), every page the index names exists, and bench/ holds the benchmark
programs only (no committed run outputs)."""
import os
import pathlib
import re
import subprocess

SOURCE_DIR = pathlib.Path(os.environ.get("KGO_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
EVIDENCE = SOURCE_DIR / "evidence"
# What a benchmark program or its input is made of; anything else under bench/ is a run's output.
PROGRAM_SUFFIXES = {".py", ".sh", ".cpp", ".cu", ".cuh", ".txt", ".md", ".json", ".candidates"}  # .candidates: a session script's input


def index_paths():
    text = (EVIDENCE / "README.md").read_text()
    rows = [line.split("|")[1] for line in text.splitlines() if line.startswith("| `")]
    return {p for row in rows for p in re.findall(r"`([^`]+)`", row)}


def entries():
    tracked = subprocess.run(["git", "ls-files", "evidence"], cwd=SOURCE_DIR, capture_output=True, text=True)
    if tracked.returncode != 0:  # not a git checkout (an installed copy): look at the files themselves
        return {p.name + ("/" if p.is_dir() else "") for p in EVIDENCE.iterdir()} - {"README.md"}
    return {f.split("/")[1] + ("/" if f.count("/") > 1 else "") for f in tracked.stdout.split()} - {"README.md"}


def test_every_evidence_entry_is_indexed_and_every_indexed_path_exists():
    named, present = index_paths(), entries()
    assert present, "evidence/ is empty"
    assert not present - named, f"evidence entries missing from evidence/README.md: {sorted(present - named)}"
    missing = [p for p in named if not (EVIDENCE / p).exists()]
    assert not missing, f"evidence/README.md names entries that do not exist: {sorted(missing)}"


def test_bench_holds_programs_only():
    tracked = subprocess.run(["git", "ls-files", "bench"], cwd=SOURCE_DIR, capture_output=True, text=True)
    if tracked.returncode != 0:  # not a git checkout (an installed copy): look at the files themselves
        files = [str(p.relative_to(SOURCE_DIR)) for p in (SOURCE_DIR / "bench").rglob("*") if p.is_file()]
    else:
        files = tracked.stdout.split()
    outputs = [f for f in files if pathlib.PurePath(f).suffix not in PROGRAM_SUFFIXES
               or re.search(r"\d{4}-\d{2}-\d{2}", f) or f.startswith("bench/results/")]
    assert not outputs, f"bench/ holds run outputs (move them to evidence/ and index them): {outputs}"


def test_evidence_is_pages_not_raw_output():
    """A run is a page; its logs, JSON and workspaces stay under the run's $OUT, not in the tree."""
    bad = sorted(e for e in entries() if e.endswith("/") or not e.endswith(".md"))
    assert not bad, f"evidence/ holds raw output (fold its figures into a <what>-<date>.md page and git rm it): {bad}"
    undated = sorted(e for e in entries() if not re.search(r"\d{4}-\d{2}-\d{2}", e))
    assert not undated, f"evidence pages without a date in their name (<what>-<machine>-<date>.md): {undated}"
