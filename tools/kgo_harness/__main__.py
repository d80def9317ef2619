#!/usr/bin/env python3
"""kgo's correctness and timing harness: `python3 tools/kgo_harness <check|bench|env|run-once|catalog|serve>`
(Python runs the package folder through this file).
Reads one JSON request on stdin and writes one JSON result on stdout (tools/kgo_harness/PROTOCOL.md)."""
import pathlib
import sys

_TOOLS = str(pathlib.Path(__file__).resolve().parents[1])
# Import the package as `kgo_harness` from tools/, never this folder's modules as top-level names (a kernel
# directory on sys.path could otherwise shadow them).
sys.path[0] = _TOOLS

if __name__ == "__main__":
    if len(sys.argv) in (4, 5) and sys.argv[1] == "__worker__":
        from kgo_harness.judge.worker import main
        from kgo_harness.procs import profiled
        profiled(main)(int(sys.argv[2]), sys.argv[3], kernels=sys.argv[4:] != ["judge-only"])
    elif len(sys.argv) == 5 and sys.argv[1] == "__forker__":
        from kgo_harness.judge.forker import serve
        sys.exit(serve(sys.argv[2], float(sys.argv[3]), sys.argv[4]))
    elif len(sys.argv) == 6 and sys.argv[1] == "__kernel__":
        from kgo_harness.cell.kernel_worker import main
        main(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5])
    else:
        from kgo_harness.supervisor import cli
        sys.exit(cli(sys.argv[1:]))
