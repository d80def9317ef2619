"""No tracked file carries a machine path: an absolute path that names where something lived on one machine.

What counts:
- a home or work root, in any file: /work/..., /root/..., /home/<user>/..., /Users/<user>/...;
- a /tmp entry in a text or data file (docs, evidence pages, captured compiler output): such a path was copied
  from a run (/tmp/ci.log, /tmp/kgo_cold_index_b14ztj25), unless it is one kgo itself uses (PRODUCT_TMP).
A program (.py, .sh, .cpp, CMake) may choose its own /tmp scratch default; that is a choice, not a capture."""
import os
import pathlib
import re
import subprocess

SOURCE_DIR = pathlib.Path(os.environ.get("KGO_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
# Not preceded by a word character, '.', '$', '}' or '-': a URL path (example.com/work/) or $VAR/root is not a root.
ROOT = re.compile(r"(?<![\w.$}\-])/(?:work|root|home/[\w.-]+|Users/[\w.-]+)(?=/|[\s`'\")\]:,]|$)")
TMP = re.compile(r"(?<![\w.$}\-])/tmp/([\w.{}<>-]+)")
# The /tmp paths kgo uses by design: the shared wiki (gpu-wiki-index/wiki_location.cpp), the warm harness's
# socket folder (harness/daemon.cpp), the demo workspace (core/init.cpp's default parent).
PRODUCT_TMP = re.compile(r"gpu-wiki|kgo-<uid>|kgo-\{\}|kernel_opt_[\w<>]+")
PROGRAM_SUFFIXES = {".py", ".sh", ".cpp", ".hpp", ".cmake", ".cu", ".cuh"}


def machine_paths(name, text):
    """The machine paths in one file's text, as (line number, path)."""
    is_program = pathlib.PurePath(name).suffix in PROGRAM_SUFFIXES or pathlib.PurePath(name).name == "CMakeLists.txt"
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        found += [(number, m.group(0)) for m in ROOT.finditer(line)]
        if not is_program:
            found += [(number, m.group(0)) for m in TMP.finditer(line) if not PRODUCT_TMP.fullmatch(m.group(1))]
    return found


def tracked_files():
    out = subprocess.run(["git", "ls-files", "-z"], cwd=SOURCE_DIR, capture_output=True, check=True)
    return [f for f in out.stdout.decode().split("\0") if f]


def test_no_tracked_file_carries_a_machine_path():
    bad = []
    for name in tracked_files():
        if name == "tests/arch/test_machine_paths.py":  # its own examples below
            continue
        path = SOURCE_DIR / name
        if not path.is_file():
            continue
        data = path.read_bytes()
        if b"\0" in data[:8192]:  # binary
            continue
        bad += [f"{name}:{n}: {p}" for n, p in machine_paths(name, data.decode("utf-8", "replace"))]
    assert not bad, ("tracked files carry machine paths (write a path relative to the checkout, a placeholder such "
                     "as <ws> or <build>, or an environment variable):\n" + "\n".join(bad[:40]))


def test_the_rule_catches_captured_paths_and_spares_product_ones():
    assert machine_paths("x.md", "kgo: /work/main/build/cli/kgo") == [(1, "/work")]
    assert machine_paths("x.cpp", 'p = "/root/.cache/kgo";') == [(1, "/root")]
    assert machine_paths("x.md", "see /home/alice/kgo and /Users/bob/x") == [(1, "/home/alice"), (1, "/Users/bob")]
    assert machine_paths("x.md", "== /tmp/ci.log") == [(1, "/tmp/ci.log")]
    assert machine_paths("k.ptx", '.file 1 "/tmp/issue7_ws/kernel.py"') == [(1, "/tmp/issue7_ws")]
    assert machine_paths("x.md", "wiki at /tmp/gpu-wiki, socket /tmp/kgo-<uid>, cd /tmp/kernel_opt_softmax") == []
    assert machine_paths("bench/x.sh", "W=/tmp/kgo_e2e_ws") == []  # a program's own scratch default
    assert machine_paths("x.md", "https://example.com/work/a, $HOME/root/x, /dev/shm, ./work/x") == []
