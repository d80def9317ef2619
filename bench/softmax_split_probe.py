#!/usr/bin/env python3
"""Benchmark for the learning session's split-row softmax candidate (examples/softmax/candidates/split_rows.py):
checks it against torch.softmax at wide, non-power-of-two and narrow shapes, then times it beside the session's
best accepted kernel so far (v3_coalesced with 16 warps from 16K columns, rebuilt here from the template by the
session's own edit) for several (CHUNK, warps) settings, at the session's three sizes. GPU only.
Usage (repo root, on the GPU machine): python3 bench/softmax_split_probe.py   Prints a table (median us, L2 flushed)."""
import importlib.util
import pathlib
import sys

import torch
import triton.testing

ROOT = pathlib.Path(__file__).resolve().parents[1]


def load(name, path, edit=None):
    text = pathlib.Path(path).read_text()
    if edit:
        assert edit[0] in text, f"the session's edit no longer applies to {path}"
        text = text.replace(*edit)
    folder = ROOT / "build" / "split_probe"
    folder.mkdir(parents=True, exist_ok=True)
    file = folder / f"{name}.py"      # Triton reads a jit function's source from its file
    file.write_text(text)
    spec = importlib.util.spec_from_file_location(name, file)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    if not torch.cuda.is_available():
        sys.exit("needs a CUDA GPU")
    best = load("best_v3", ROOT / "templates/ops/softmax/v3_coalesced.py",
                ("warps = 8 if block * rows >= 4096 else 4",
                 "warps = 16 if block >= 16384 else 8 if block * rows >= 4096 else 4"))
    split = load("split_rows", ROOT / "examples/softmax/candidates/split_rows.py")
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}")
    for shape in ([1024, 32768], [4096, 20000], [64, 393216], [3, 16384], [1, 50000], [4096, 4096], [32768, 256]):
        x = torch.randn(shape, device="cuda") * 30
        err = (split.triton_softmax(x) - torch.softmax(x, -1)).abs().max().item()
        print(f"correctness {shape}: max abs err {err:.2e} {'ok' if err < 1e-5 else 'WRONG'}")
    print(f"{'shape':<12} {'best (v3+16w)':>14} {'torch':>8} " + " ".join(f"{f'{c}/{w}w':>9}" for c, w in SETTINGS))
    for shape in ([1024, 32768], [4096, 4096], [32768, 256]):
        x = torch.randn(shape, device="cuda")
        row = [triton.testing.do_bench(lambda: best.triton_softmax(x), return_mode="median") * 1e3,
               triton.testing.do_bench(lambda: torch.softmax(x, -1), return_mode="median") * 1e3]
        for chunk, warps in SETTINGS:
            split.CHUNK, split.CHUNK_WARPS = chunk, warps
            row.append(triton.testing.do_bench(lambda: split.triton_softmax(x), return_mode="median") * 1e3)
        print(f"{'x'.join(map(str, shape)):<12} {row[0]:>14.1f} {row[1]:>8.1f} " + " ".join(f"{v:>9.1f}" for v in row[2:]))


SETTINGS = [(4096, 4), (4096, 8), (8192, 8), (8192, 16), (16384, 16)]

if __name__ == "__main__":
    main()
