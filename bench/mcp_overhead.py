#!/usr/bin/env python3
"""MCP overhead per tool call, side by side with the CLI: the same `status` (and `next`) answered
by `kgo --json <cmd>` run as a process, and by a `tools/call` to one running `kgo mcp` (raw JSON-RPC
over its pipes, so no client library's cost is counted). Prints medians and the difference.

usage: bench/mcp_overhead.py [--kgo build/cli/kgo] [--runs 30]"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def make_workspace(kgo, tmp):
    src = pathlib.Path(tmp) / "kernel.py"
    src.write_text((ROOT / "examples" / "softmax" / "kernel.py").read_text())
    subprocess.run([kgo, "init", "softmax", str(src), "--platform", "H100", "--dir", tmp, "--reference",
                    str(ROOT / "templates" / "ops" / "softmax" / "ref.py")], check=True, capture_output=True)
    return pathlib.Path(tmp) / "kernel_opt_softmax"


class Mcp:
    """One `kgo mcp` (serving `ws` when given) driven over raw JSON-RPC."""

    def __init__(self, kgo, ws, env, cwd=None):
        args = [str(kgo), "mcp"] + (["--workspace", str(ws)] if ws else [])
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  env=env, cwd=cwd, text=True, bufsize=1)
        self.n = 0
        self.rpc("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                "clientInfo": {"name": "bench", "version": "0"}})
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")

    def rpc(self, method, params):
        self.n += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params}) + "\n")
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError(f"kgo mcp closed its output during {method} (exit {self.p.wait(timeout=10)})")
            msg = json.loads(line)
            if msg.get("id") == self.n:
                return msg

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=10)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kgo", default=str(ROOT / "build" / "cli" / "kgo"))
    ap.add_argument("--runs", type=int, default=30)
    a = ap.parse_args()
    env = dict(os.environ, KGO_DATA_DIR=str(ROOT), KGO_HARNESS_DAEMON="0")
    with tempfile.TemporaryDirectory() as tmp:
        ws = make_workspace(a.kgo, tmp)
        server = Mcp(a.kgo, ws, env)
        print(f"# MCP overhead per tool call ({a.runs} runs each, interleaved; medians)\n")
        print("| tool | CLI ms | MCP ms | MCP - CLI ms |\n|---|---|---|---|")
        worst = 0.0
        for cmd in ["status", "next"]:
            cli, via = [], []
            for _ in range(a.runs):
                t = time.perf_counter()
                subprocess.run([a.kgo, "--json", cmd, "--workspace", str(ws)], env=env, capture_output=True, check=True)
                cli.append((time.perf_counter() - t) * 1e3)
                t = time.perf_counter()
                r = server.rpc("tools/call", {"name": cmd, "arguments": {}})
                via.append((time.perf_counter() - t) * 1e3)
                assert not r["result"]["isError"], r
            c, m = statistics.median(cli), statistics.median(via)
            worst = max(worst, m - c)
            print(f"| {cmd} | {c:.2f} | {m:.2f} | {m - c:+.2f} |")
        server.close()
        print(f"\nlargest added cost: {worst:+.2f} ms per call (target: at most 5 ms)")
        return 0 if worst <= 5 else 1


if __name__ == "__main__":
    sys.exit(main())
