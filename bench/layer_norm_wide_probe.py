#!/usr/bin/env python3
"""Benchmark for the layer_norm learning session's wide rows: v3_coalesced (the session's best so far on the H100,
117 us at 1024x32768 against an 80 us copy floor) beside edits of the templates that keep weight and bias in
registers across the rows of a persistent program (v4_optimized with rows of up to 32K columns in registers), for
several warp counts and programs per SM. Each variant is checked against F.layer_norm at wide, non-power-of-two
and narrow shapes, then timed at the session's three sizes. GPU only.
Usage (repo root, on the GPU machine): python3 bench/layer_norm_wide_probe.py
Prints one row per variant (median us from triton.testing.do_bench)."""
import pathlib
import sys

import torch
import torch.nn.functional as F
import triton.testing

import kernel_variant

ROOT = pathlib.Path(__file__).resolve().parents[1]
T = ROOT / "templates/ops/layer_norm"
V3_WARPS = "warps = 8 if block * rows >= 4096 else 4"
V4_ROW = "MAX_REGISTER_ROW = 16384"
V4_WARPS = "warps = 16 if block >= 16384 else 8 if block >= 8192 else 4"
V4_GRID = "return rows, block, warps, 0"


def v4(warps_32k, per_sm):
    return ("v4_optimized.py", [(V4_ROW, "MAX_REGISTER_ROW = 32768"),
                                (V4_WARPS, f"warps = {warps_32k} if block >= 32768 else " + V4_WARPS[len("warps = "):]),
                                (V4_GRID, f"return rows, block, warps, {per_sm}")])


VARIANTS = {
    "v3 (8 warps)": ("v3_coalesced.py", []),
    "v3 16 warps": ("v3_coalesced.py", [(V3_WARPS, "warps = 16 if block >= 16384 else 8 if block * rows >= 4096 else 4")]),
    "v4 as is": ("v4_optimized.py", []),
    "v4 32K regs, 16w": v4(16, 0),
    "persist 1/SM 8w": v4(8, 1),
    "persist 1/SM 16w": v4(16, 1),
    "persist 1/SM 32w": v4(32, 1),
    "persist 2/SM 16w": v4(16, 2),
    "persist 2/SM 8w": v4(8, 2),
}


def main():
    if not torch.cuda.is_available():
        sys.exit("needs a CUDA GPU")
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}")
    sizes = ([1024, 32768], [4096, 4096], [32768, 256])
    print(f"{'variant':<20}" + "".join(f"{'x'.join(map(str, s)):>14}" for s in sizes) + f"{'mean':>10}  correctness")
    torch_row = []
    for shape in sizes:
        x = torch.randn(shape, device="cuda")
        w, b = torch.randn(shape[1], device="cuda"), torch.randn(shape[1], device="cuda")
        torch_row.append(triton.testing.do_bench(lambda: F.layer_norm(x, (shape[1],), w, b), return_mode="median") * 1e3)
    print(f"{'torch':<20}" + "".join(f"{v:>14.1f}" for v in torch_row) + f"{sum(torch_row) / 3:>10.1f}")
    for i, (name, (file, edits)) in enumerate(VARIANTS.items()):
        mod = kernel_variant.load(T / file, edits, f"variant{i}")
        bad = []
        for shape in ([1024, 32768], [3, 20000], [1, 50000], [5, 32768], [17, 4097], [4096, 4096], [33, 256]):
            x = torch.randn(shape, device="cuda") * 3 + 1
            w, b = torch.randn(shape[1], device="cuda"), torch.randn(shape[1], device="cuda")
            err = (mod.triton_layer_norm(x, w, b) - F.layer_norm(x, (shape[1],), w, b)).abs().max().item()
            if not err < 1e-4:
                bad.append(f"{shape}: {err:.1e}")
        row = []
        for shape in sizes:
            x = torch.randn(shape, device="cuda")
            w, b = torch.randn(shape[1], device="cuda"), torch.randn(shape[1], device="cuda")
            row.append(triton.testing.do_bench(lambda: mod.triton_layer_norm(x, w, b), return_mode="median") * 1e3)
        print(f"{name:<20}" + "".join(f"{v:>14.1f}" for v in row) + f"{sum(row) / 3:>10.1f}  " +
              ("ok" if not bad else "WRONG " + "; ".join(bad)))


if __name__ == "__main__":
    main()
