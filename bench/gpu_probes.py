#!/usr/bin/env python3
"""GPU probes of finished device runs, one subcommand each (repo root, on the GPU machine; each prints its table):
  judge-costs [rows cols]   what the judge's per-case steps cost, each timed alone (median of 20, device
                            synchronized): the delegation profile with and without the GPU (CUPTI) activity, the
                            float64 comparison of one output, the float64 reference, a bitwise equality, and seeding
                            (torch.manual_seed against kgo's contracts.seed_all); examples/softmax/kernel.py, float32
  warmup-credit [ROUNDS] [OP] [N]   whether the warm-up credit (timing.HOT_WINDOW_S) changes the baselines: one
                            warm `serve` harness benches a kernel and its eager and torch.compile baselines,
                            alternating `warmup_credit` on and off (defaults 8 softmax 4096)
  layer-norm-wide           layer_norm's wide rows: v3_coalesced beside edits of v4_optimized that keep weight and
                            bias in registers across the rows of persistent programs (warp counts, programs per SM),
                            each checked against F.layer_norm, then timed at the learning session's three sizes
  softmax-candidates [candidate ...]   the learning session's wide-row softmax candidates
                            (examples/softmax/candidates/) checked against torch.softmax and timed over their
                            module settings beside the session's best (v3_coalesced with 16 warps from 16K columns)
Variants of a template are written with text edits under build/probe_variants/ and imported from there (Triton
reads a jit function's source from its file)."""
import importlib.util
import json
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
FOLDER = ROOT / "build" / "probe_variants"
sys.path.insert(0, str(ROOT / "tools"))


def load(path, edits=(), name=None):
    """The module of `path` with each (old, new) of `edits` applied; an edit that no longer applies is an error."""
    path = pathlib.Path(path)
    text = path.read_text()
    for old, new in edits:
        assert old in text, f"edit {old!r} no longer applies to {path}"
        text = text.replace(old, new)
    name = name or path.stem
    FOLDER.mkdir(parents=True, exist_ok=True)
    file = FOLDER / f"{name}.py"
    file.write_text(text)
    spec = importlib.util.spec_from_file_location(name, file)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def timed(fn, n=20):
    import torch
    fn()
    torch.cuda.synchronize()
    got = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        got.append((time.perf_counter() - t) * 1e3)
    return statistics.median(got)


def judge_costs(argv):
    import torch
    from kgo_harness import launches
    from kgo_harness.formats import contracts
    from kgo_harness.judge import compare
    rows, cols = (int(argv[0]), int(argv[1])) if len(argv) > 1 else (4096, 4096)
    kernel = load(ROOT / "examples" / "softmax" / "kernel.py", name="probe_softmax")
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


def warmup_credit(argv):
    rounds = int(argv[0]) if len(argv) > 0 else 8
    op = argv[1] if len(argv) > 1 else "softmax"
    n = int(argv[2]) if len(argv) > 2 else 4096
    base = {"command": "bench", "kernel": f"templates/ops/{op}/v4_optimized.py", "op": op, "device": "cuda",
            "shapes": [[n, n]]}
    p = subprocess.Popen([sys.executable, "tools/kgo_harness", "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)

    def ask(credit):
        req = dict(base, bench={"baselines": ["eager", "compile"], "warmup_credit": credit})
        t = time.perf_counter()
        p.stdin.write(json.dumps(req) + "\n")
        p.stdin.flush()
        res = json.loads(p.stdout.readline())
        assert res["verdict"] == "PASS", res["message"]
        size = res["sizes"][0]
        return {"wall_s": time.perf_counter() - t, "kernel_us": size["median_us"], "eager_us": size["eager_us"],
                "compile_us": size["compile_us"], "credit_s": res["timing"]["warmup_credit_s"]}

    ask(True), ask(False)   # compile and warm everything first
    got = {True: [], False: []}
    for _ in range(rounds):
        for credit in (True, False):
            got[credit].append(ask(credit))
    p.stdin.write('{"command": "shutdown"}\n')
    p.stdin.flush()
    p.wait()
    print(f"{op} {n}x{n}, {rounds} rounds each side, alternating; medians (min-max) over rounds")
    print(f"{'warmup_credit':<14}{'kernel us':>24}{'eager us':>24}{'compile us':>24}{'bench wall s':>16}{'credit ms':>11}")
    for credit in (True, False):
        rows = got[credit]

        def col(k):
            v = [r[k] for r in rows]
            return f"{statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f})"
        print(f"{str(credit):<14}{col('kernel_us'):>24}{col('eager_us'):>24}{col('compile_us'):>24}"
              f"{statistics.median(r['wall_s'] for r in rows):>16.3f}{statistics.median(r['credit_s'] for r in rows) * 1e3:>11.1f}")
    for k in ("eager_us", "compile_us"):
        on, off = (statistics.median(r[k] for r in got[c]) for c in (True, False))
        print(f"{k}: credit on / off = {on / off:.4f}")


LN = ROOT / "templates/ops/layer_norm"
V3_WARPS = "warps = 8 if block * rows >= 4096 else 4"
V4_ROW = "MAX_REGISTER_ROW = 16384"
V4_WARPS = "warps = 16 if block >= 16384 else 8 if block >= 8192 else 4"
V4_GRID = "return rows, block, warps, 0"


def ln_v4(warps_32k, per_sm):
    return ("v4_optimized.py", [(V4_ROW, "MAX_REGISTER_ROW = 32768"),
                                (V4_WARPS, f"warps = {warps_32k} if block >= 32768 else " + V4_WARPS[len("warps = "):]),
                                (V4_GRID, f"return rows, block, warps, {per_sm}")])


LN_VARIANTS = {
    "v3 (8 warps)": ("v3_coalesced.py", []),
    "v3 16 warps": ("v3_coalesced.py", [(V3_WARPS, "warps = 16 if block >= 16384 else 8 if block * rows >= 4096 else 4")]),
    "v4 as is": ("v4_optimized.py", []),
    "v4 32K regs, 16w": ln_v4(16, 0),
    "persist 1/SM 8w": ln_v4(8, 1),
    "persist 1/SM 16w": ln_v4(16, 1),
    "persist 1/SM 32w": ln_v4(32, 1),
    "persist 2/SM 16w": ln_v4(16, 2),
    "persist 2/SM 8w": ln_v4(8, 2),
}


def layer_norm_wide(argv):
    import torch
    import torch.nn.functional as F
    import triton.testing

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
    for i, (name, (file, edits)) in enumerate(LN_VARIANTS.items()):
        mod = load(LN / file, edits, f"variant{i}")
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


def _variant(name, path, edit=None):
    return load(path, [edit] if edit else [], name)


def softmax_candidates(argv):
    import torch
    import triton.testing

    if not torch.cuda.is_available():
        sys.exit("needs a CUDA GPU")
    best = _variant("best_v3", ROOT / "templates/ops/softmax/v3_coalesced.py",
                    ("warps = 8 if block * rows >= 4096 else 4",
                     "warps = 16 if block >= 16384 else 8 if block * rows >= 4096 else 4"))
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}")
    for name in argv or list(SOFTMAX_SETTINGS):
        cand = _variant(name, ROOT / f"examples/softmax/candidates/{name}.py")
        for shape in ([1024, 32768], [4096, 20000], [64, 393216], [3, 16384], [1, 50000], [4096, 4096], [32768, 256]):
            x = torch.randn(shape, device="cuda") * 30
            err = (cand.triton_softmax(x) - torch.softmax(x, -1)).abs().max().item()
            print(f"{name} correctness {shape}: max abs err {err:.2e} {'ok' if err < 1e-5 else 'WRONG'}")
        settings = SOFTMAX_SETTINGS[name]
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


SOFTMAX_SETTINGS = {
    "split_rows": {"names": ["CHUNK", "CHUNK_WARPS"], "values": [(4096, 4), (8192, 8), (16384, 16)]},
    "l2_two_pass": {"names": ["TILE", "PER_SM", "TILE_WARPS"],
                    "values": [(2048, 2, 4), (4096, 2, 8), (4096, 1, 8), (4096, 3, 8), (8192, 2, 16), (8192, 1, 16)]},
}


PROBES = {"judge-costs": judge_costs, "warmup-credit": warmup_credit, "layer-norm-wide": layer_norm_wide,
          "softmax-candidates": softmax_candidates}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in PROBES:
        sys.exit(f"usage: {sys.argv[0]} {'|'.join(PROBES)} [arguments]")
    PROBES[sys.argv[1]](sys.argv[2:])
