#!/usr/bin/env python3
"""Benchmark for the learning session's wide-row softmax candidates (examples/softmax/candidates/: split_rows.py,
l2_two_pass.py): checks each against torch.softmax at wide, non-power-of-two and narrow shapes, then times it
beside the session's best accepted kernel so far (v3_coalesced with 16 warps from 16K columns, rebuilt here from
the template by the session's own edit) for several settings of its module constants, at the session's three
sizes. GPU only.
Usage (repo root, on the GPU machine): python3 bench/softmax_candidates_probe.py [candidate ...]
Prints one table per candidate (median us from triton.testing.do_bench)."""
import pathlib
import sys

import torch
import triton.testing

import kernel_variant

ROOT = pathlib.Path(__file__).resolve().parents[1]


def load(name, path, edit=None):
    return kernel_variant.load(path, [edit] if edit else [], name)


def main():
    if not torch.cuda.is_available():
        sys.exit("needs a CUDA GPU")
    best = load("best_v3", ROOT / "templates/ops/softmax/v3_coalesced.py",
                ("warps = 8 if block * rows >= 4096 else 4",
                 "warps = 16 if block >= 16384 else 8 if block * rows >= 4096 else 4"))
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}")
    for name in sys.argv[1:] or list(SETTINGS):
        cand = load(name, ROOT / f"examples/softmax/candidates/{name}.py")
        for shape in ([1024, 32768], [4096, 20000], [64, 393216], [3, 16384], [1, 50000], [4096, 4096], [32768, 256]):
            x = torch.randn(shape, device="cuda") * 30
            err = (cand.triton_softmax(x) - torch.softmax(x, -1)).abs().max().item()
            print(f"{name} correctness {shape}: max abs err {err:.2e} {'ok' if err < 1e-5 else 'WRONG'}")
        settings = SETTINGS[name]
        print(f"{'shape':<12} {'best (v3+16w)':>14} {'torch':>8} " +
              " ".join(f"{'/'.join(map(str, v)):>12}" for v in settings["values"]) + f"   ({'/'.join(settings['names'])})")
        for shape in ([1024, 32768], [4096, 4096], [32768, 256]):
            x = torch.randn(shape, device="cuda")
            row = [triton.testing.do_bench(lambda: best.triton_softmax(x), return_mode="median") * 1e3,
                   triton.testing.do_bench(lambda: torch.softmax(x, -1), return_mode="median") * 1e3]
            for values in settings["values"]:
                for attr, v in zip(settings["names"], values):
                    setattr(cand, attr, v)
                row.append(triton.testing.do_bench(lambda: cand.triton_softmax(x), return_mode="median") * 1e3)
            print(f"{'x'.join(map(str, shape)):<12} {row[0]:>14.1f} {row[1]:>8.1f} " +
                  " ".join(f"{v:>12.1f}" for v in row[2:]))


SETTINGS = {
    "split_rows": {"names": ["CHUNK", "CHUNK_WARPS"], "values": [(4096, 4), (8192, 8), (16384, 16)]},
    "l2_two_pass": {"names": ["TILE", "PER_SM", "TILE_WARPS"],
                    "values": [(2048, 2, 4), (4096, 2, 8), (4096, 1, 8), (4096, 3, 8), (8192, 2, 16), (8192, 1, 16)]},
}

if __name__ == "__main__":
    main()
