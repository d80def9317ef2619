"""ARCHITECTURE.md's directory map names every top-level folder of the repository and every library, so that a
newcomer finds each folder there."""
import os
import pathlib
import re
import subprocess

SOURCE_DIR = pathlib.Path(os.environ.get("KGO_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))


def mapped_paths():
    text = (SOURCE_DIR / "ARCHITECTURE.md").read_text()
    section = text[text.index("## Directory map"):]
    section = section[:section.index("\n## ", 1)] if "\n## " in section[1:] else section
    rows = [line.split("|")[1] for line in section.splitlines() if line.startswith("| `")]
    return {p.rstrip("/") for row in rows for p in re.findall(r"`([^`]+)`", row)}


def top_level_folders():
    out = subprocess.run(["git", "ls-files"], cwd=SOURCE_DIR, capture_output=True, text=True)
    if out.returncode != 0:  # not a git checkout: the folders themselves
        return {p.name for p in SOURCE_DIR.iterdir() if p.is_dir() and p.name not in (".git", "build")}
    return {f.split("/")[0] for f in out.stdout.split() if "/" in f}


def library_folders():
    """The folders whose CMakeLists.txt declares a kgo_ library."""
    return {p.parent.name for p in SOURCE_DIR.glob("*/CMakeLists.txt")
            if re.search(r"add_library\(\s*kgo_\w+", p.read_text())}


def test_every_top_level_folder_and_library_is_in_the_directory_map():
    mapped = mapped_paths()
    mapped |= {p.split("/")[0] for p in mapped}  # a row for tools/kgo_harness/ maps tools/ too
    missing = sorted((top_level_folders() | library_folders() | {"tools/tests"}) - mapped)
    assert not missing, f"ARCHITECTURE.md's directory map lacks {missing}: add a row that says what lives there"
    stale = sorted(p for p in mapped if "/" not in p and "." not in p.lstrip(".") and not (SOURCE_DIR / p).is_dir())
    assert not stale, f"ARCHITECTURE.md's directory map names folders that do not exist: {stale}"
