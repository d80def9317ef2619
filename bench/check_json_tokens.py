#!/usr/bin/env python3
"""Size of a 15-case `kgo check --json` in tokens (characters / 4), side by side: the summary (the
default) and --detail (every case, every check and the harness result: what --json printed before the
summary existed). One PASS run and one FAIL run (normalized by sum + 1, so every case fails).
CPU only (Triton interpreter): 5 shapes x 3 trials = 15 cases, edge shapes off.

usage: bench/check_json_tokens.py [--kgo build/cli/kgo]"""
import argparse
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
SHAPES = ["8x33", "4x64", "16x17", "2x100", "1x7"]
GOAL = 1000


def kgo_json(kgo, ws, env, *args):
    argv = [kgo, "check", "--workspace", str(ws), "--json", "--device", "cpu", "--trials", "3", "--no-edge-shapes",
            "--no-record", *[f"--shape={s}" for s in SHAPES], *args]
    return subprocess.run(argv, capture_output=True, text=True, env=env).stdout.strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kgo", default=str(ROOT / "build" / "cli" / "kgo"))
    a = ap.parse_args()
    env = {**os.environ, "KGO_DATA_DIR": str(ROOT), "KGO_HARNESS_DAEMON": "0"}
    with tempfile.TemporaryDirectory() as tmp:
        src = pathlib.Path(tmp) / "kernel.py"
        good = (ROOT / "examples" / "softmax" / "kernel.py").read_text()
        src.write_text(good)
        subprocess.run([a.kgo, "init", "softmax", str(src), "--platform", "H100", "--dir", tmp, "--reference",
                        str(ROOT / "templates" / "ops" / "softmax" / "ref.py")], check=True, capture_output=True, env=env)
        ws = pathlib.Path(tmp) / "kernel_opt_softmax"
        rows = []
        for label, text in [("PASS", good), ("FAIL", None)]:
            if text is None:
                # normalized by sum + 1: a wrong kernel whose every case fails
                body = (ws / "kernel.py").read_text()
                (ws / "kernel.py").write_text(body.replace("y = e / tl.sum(e, axis=0)", "y = e / (tl.sum(e, axis=0) + 1.0)"))
            summary = kgo_json(a.kgo, ws, env)
            detail = kgo_json(a.kgo, ws, env, "--detail")
            rows.append((label, len(summary) / 4, len(detail) / 4))
        print(f"15-case kgo check --json (chars/4 tokens); goal: summary < {GOAL}")
        print(f"{'verdict':8} {'summary':>9} {'--detail':>9} {'ratio':>7}")
        for label, s, d in rows:
            print(f"{label:8} {s:9.0f} {d:9.0f} {d / s:6.1f}x")
        return 0 if all(s < GOAL for _, s, _ in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
