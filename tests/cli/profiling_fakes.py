"""Fake nvidia-smi / ncu / kgo_ceiling executables for the profiling CLI tests (real processes on PATH).

The fake ncu writes a real H200 CSV (tests/profiling/data, shared research evidence) to --log-file and prints
a harness-like result on stdout, so kgo's whole pipeline runs without a GPU. Each fake logs its argv."""
import json
import os
import pathlib
import stat
import sys
import textwrap

from conftest import SOURCE_DIR

DATA = SOURCE_DIR / "tests" / "profiling" / "data"


def _script(path, body):
    # This interpreter without `site` (-S): the fakes use the standard library only, and site's start-up (.pth
    # files included) was most of each fake's 40 ms of CPU, on some 150 calls.
    path.write_text(f"#!{sys.executable} -S\n" + textwrap.dedent(body))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def fake_smi(bindir, name="NVIDIA H200", working=True):
    _script(bindir / "nvidia-smi", f"""
        import sys
        if not {working!r}:
            sys.stderr.write("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver\\n")
            sys.exit(9)
        if any(a.startswith("--query-gpu") for a in sys.argv):
            print("0, {name}, 9.0, 580.159.04, 1980, 3201, 1980, 3201, 35, 120.50, 0x0")
        else:
            print("| NVIDIA-SMI 580.159.04   Driver Version: 580.159.04   CUDA Version: 13.0 |")
        """)


def fake_ncu(bindir, csv=None, summary_csv=None, stderr_text="", launches=("_softmax_rows",), verdict="PASS"):
    """`csv`: written for profiling passes; `summary_csv`: for the --print-kernel-base (summary) pass."""
    log = bindir / "ncu_calls.jsonl"
    _script(bindir / "ncu", f"""
        import json, shutil, sys
        args = sys.argv[1:]
        if args == ["--version"]:
            print("NVIDIA (R) Nsight Compute Command Line Profiler\\nVersion 2025.3.1.0 (build 36398880)")
            sys.exit(0)
        open({str(log)!r}, "a").write(json.dumps(args) + "\\n")
        import os
        open({str(log) + '.cell'!r}, "a").write(os.environ.get("KGO_CELL", "-") + "\\n")
        out = args[args.index("--log-file") + 1]
        src = {str(summary_csv) if summary_csv else None!r} if "--print-kernel-base" in args else {str(csv) if csv else None!r}
        text = "==PROF== Connected to process 4242\\n" + {stderr_text!r}
        if src:
            text += open(src).read()
        open(out, "w").write(text)
        print(json.dumps({{"verdict": {verdict!r}, "message": "the kernel raised ValueError: bad shape",
                          "launches": {list(launches)!r}}}))
        """)
    return log


def fake_env(bindir):
    return {"PATH": f"{bindir}:{os.environ['PATH']}"}


def calls(log):
    return [json.loads(l) for l in log.read_text().splitlines()] if log.exists() else []


def fake_ceiling_binary(path, gpu="NVIDIA H200", fail=False):
    lines = (DATA / "h200_kgo_ceiling_stdout.jsonl").read_text()
    lines = lines.replace("NVIDIA H200", gpu)
    _script(path, f"""
        import sys
        open({str(path) + '.argv'!r}, "w").write(" ".join(sys.argv[1:]))
        if {fail!r}:
            sys.stderr.write("kgo_ceiling: cudaMalloc failed: out of memory\\n")
            sys.exit(3)
        sys.stdout.write({lines!r})
        """)
