#!/usr/bin/env python3
"""Benchmark: `kgo init` against doing the same with the git CLI (git init, add, commit).

Both sides write the same files (kgo's own workspace content, copied from a kgo-made workspace)
and make one commit. Prints the median of 20 runs of each and their ratio (kgo / git).
Usage: bench/init_vs_git.py [path/to/kgo] [runs]
"""
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
KGO = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "build" / "cli" / "kgo")
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 20
KERNEL = ROOT / "examples" / "softmax" / "kernel.py"
ENV = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@b", GIT_COMMITTER_NAME="b",
           GIT_COMMITTER_EMAIL="b@b", KGO_DATA_DIR=str(ROOT))


def time_kgo(parent, i):
    t = time.perf_counter()
    subprocess.run([KGO, "init", f"k{i}", str(KERNEL), "--platform", "H100", "--dir", parent],
                   check=True, capture_output=True, env=ENV)
    return time.perf_counter() - t


def time_git(template, parent, i):
    ws = pathlib.Path(parent) / f"g{i}"
    t = time.perf_counter()
    shutil.copytree(template, ws, ignore=shutil.ignore_patterns(".git"))
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "init"]):
        subprocess.run(["git", *args], cwd=ws, check=True, capture_output=True, env=ENV)
    return time.perf_counter() - t


def main():
    with tempfile.TemporaryDirectory() as parent:
        time_kgo(parent, "template")  # also warms the wiki index cache
        template = pathlib.Path(parent) / "kernel_opt_ktemplate"
        kgo_times, git_times = [], []
        for i in range(RUNS):
            kgo_times.append(time_kgo(parent, i))
            git_times.append(time_git(template, parent, i))
        k, g = statistics.median(kgo_times), statistics.median(git_times)
        print(f"runs: {RUNS}")
        print(f"kgo init            median {k * 1e3:8.2f} ms")
        print(f"git init+add+commit median {g * 1e3:8.2f} ms (files copied from a kgo workspace)")
        print(f"ratio kgo/git: {k / g:.2f} (target <= 1.00)")


if __name__ == "__main__":
    main()
