#!/usr/bin/env python3
"""Probe: what the judge's per-case steps cost on this GPU, each timed alone (median of 20, device synchronized):
the delegation profile with and without the GPU (CUPTI) activity, the float64 comparison of one output, the
reference-validity read, a bitwise equality, and seeding the generators (torch.manual_seed against kgo's
contracts.seed_all). Usage: bench/judge_costs_probe.py [rows cols]   (examples/softmax/kernel.py, float32)"""
import pathlib
import statistics
import sys
import time

import torch

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "bench"))
from kgo_harness.judge import compare
from kgo_harness.formats import contracts
from kgo_harness import launches  # noqa: E402
import kernel_variant  # noqa: E402


def timed(fn, n=20):
    fn()
    torch.cuda.synchronize()
    got = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        got.append((time.perf_counter() - t) * 1e3)
    return statistics.median(got)


def main():
    rows, cols = (int(sys.argv[1]), int(sys.argv[2])) if len(sys.argv) > 2 else (4096, 4096)
    kernel = kernel_variant.load(ROOT / "examples" / "softmax" / "kernel.py", name="probe_softmax")
    x = torch.randn(rows, cols, device="cuda")
    ref = torch.softmax(x.double(), dim=-1)
    out = kernel.triton_softmax(x)
    launches.install()
    run = lambda: (kernel.triton_softmax(x), torch.cuda.synchronize())
    rows_out = [
        ("delegation profile, aten ops only", timed(lambda: launches.profiled(run, False))),
        ("delegation profile, with GPU kernels (CUPTI)", timed(lambda: launches.profiled(run, True))),
        ("compare one output (float64)", timed(lambda: compare.compare("out", out, ref, 1e-4, 1e-3, 1e-3))),
        ("  its full path (what a failing output takes)",
         timed(lambda: compare._full_figures({"numel": ref.numel()}, out, ref, 1e-4, 1e-3))),
        ("float64 reference of the case", timed(lambda: torch.softmax(x.double(), dim=-1))),
        ("bitwise equality of two outputs", timed(lambda: compare.bitwise_equal(out, out.clone()))),
        ("torch.manual_seed", timed(lambda: torch.manual_seed(1), n=200)),
        ("contracts.seed_all", timed(lambda: contracts.seed_all(1), n=200)),
    ]
    print(f"{torch.cuda.get_device_name()}, softmax {rows}x{cols} float32; ms, median of 20 (seeds: 200)")
    for name, ms in rows_out:
        print(f"{name:<48} {ms:8.3f}")


if __name__ == "__main__":
    main()
