#!/usr/bin/env python3
"""H200 evidence for kgo's Python harness (tools/kgo_harness): run by bench/harness_h200.sh.

Steps (each writes <out>/data/<step>.json): copy (the copy ceiling of this run), sweep (launch settings of
the v4 examples at 4096^2), examples (check + bench of the four variants of softmax, layer_norm, gelu, add
against eager / torch.compile), repeat (two benches of each v4 at 4096^2), overhead (check + bench cycle,
cold one-shot processes against a warm `serve` worker), timing (harness medians of the ncu targets and
plain triton.testing.do_bench), ncu_targets (run under ncu by the shell script), report (markdown).
Usage: python3 bench/harness_h200.py <step> --out DIR
"""
import argparse
import datetime
import importlib.util
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
ENTRY = ROOT / "tools" / "kgo_harness"
TEMPLATES = ROOT / "templates" / "ops"
OPS = ["softmax", "layer_norm", "gelu", "add"]
VARIANTS = ["v1_baseline", "v2_tiling", "v3_coalesced", "v4_optimized"]
BIG = [4096, 4096]
SMOKE = os.environ.get("HARNESS_SMOKE") == "1"   # a shorter first pass: fewer variants and targets
sys.path.insert(0, str(ROOT / "tools"))


class Serve:
    def __init__(self, log):
        self.proc = subprocess.Popen([sys.executable, str(ENTRY), "serve"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=log, text=True, cwd=ROOT)

    def __call__(self, **req):
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=120)


def one_shot(command, req):
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, str(ENTRY), command], input=json.dumps(req), capture_output=True,
                          text=True, cwd=ROOT, timeout=900)
    wall = time.perf_counter() - start
    return json.loads(proc.stdout), wall


def load(path):
    spec = importlib.util.spec_from_file_location(pathlib.Path(path).stem + "_mod", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def kreq(op, variant, **extra):
    req = {"kernel": str(TEMPLATES / op / f"{variant}.py"), "reference": str(TEMPLATES / op / "ref.py"),
           "op": op, "device": "cuda"}
    req.update(extra)
    return req


def save(out, step, data):
    (out / "data").mkdir(parents=True, exist_ok=True)
    (out / "data" / f"{step}.json").write_text(json.dumps(data, indent=1, default=str))
    print(f"== {step}: saved", flush=True)


# ----------------------------------------------------------------------------------------------------
def step_copy(out, args):
    import torch
    n = (1 << 30) // 4
    a = torch.randn(n, device="cuda")
    b = torch.empty_like(a)
    for _ in range(5):
        b.copy_(a)
    times = []
    for _ in range(30):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        b.copy_(a)
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) * 1e3)
    med = statistics.median(times)
    res = {"bytes": 2 * n * 4, "median_us": med, "tbps": 2 * n * 4 / (med * 1e6),
           "device": torch.cuda.get_device_name(), "sms": torch.cuda.get_device_properties(0).multi_processor_count,
           "l2_bytes": torch.cuda.get_device_properties(0).L2_cache_size, "torch": torch.__version__}
    import triton
    res["triton"] = triton.__version__
    print(f"copy ceiling: {res['tbps']:.3f} TB/s ({med:.1f} us for {res['bytes'] / 1e9:.2f} GB)", flush=True)
    save(out, "copy", res)


def step_sweep(out, args):
    """Launch settings of the v4 kernels at 4096^2 fp32, timed with the harness's own Timer."""
    import torch
    from kgo_harness.judge import bench
    ledger = {"device_s": 0.0, "compile_s": 0.0}
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    flush = torch.ones(2 * l2 // 4, dtype=torch.float32, device="cuda")
    timer = bench.Timer("cuda", flush, {"warmup": 3, "warmup_ms": 10, "graph_batch": 20}, ledger)
    x = [torch.randn(BIG, device="cuda") for _ in range(2)]
    y = [torch.randn(BIG, device="cuda") for _ in range(2)]
    w, b = torch.randn(BIG[1], device="cuda"), torch.randn(BIG[1], device="cuda")
    results = {}
    for op in OPS:
        mod = load(TEMPLATES / op / "v4_optimized.py")
        fn = getattr(mod, f"triton_{op}")
        default = mod.config(*BIG) if op in ("softmax", "layer_norm") else mod.config(BIG[0] * BIG[1])
        if op in ("softmax", "layer_norm"):
            configs = [(r, 4096, wp, ps) for r in (1, 2) for wp in (2, 4, 8, 16) for ps in (0, 8, 16)]
        else:
            configs = [(bl, wp) for bl in (512, 1024, 2048, 4096) for wp in (2, 4, 8) if bl // (32 * wp) >= 4]
        call = {"softmax": lambda r: fn(x[r]), "layer_norm": lambda r: fn(x[r], w, b, 1e-5),
                "gelu": lambda r: fn(x[r]), "add": lambda r: fn(x[r], y[r], 1.0)}[op]
        rows = []
        for cfg in configs:
            mod.config = (lambda c: (lambda *a: c))(cfg)
            try:
                call(0)
                torch.cuda.synchronize()
                timer.warmup(call, 2)
                samples, _ = timer.events(call, 2, 30)
                rows.append({"config": cfg, "median_us": statistics.median(samples)})
            except Exception as e:
                rows.append({"config": cfg, "error": f"{type(e).__name__}: {str(e)[:200]}"})
        import torch.nn.functional as F
        eager = {"softmax": lambda r: torch.softmax(x[r], -1),
                 "layer_norm": lambda r: F.layer_norm(x[r], (BIG[1],), w, b, 1e-5),
                 "gelu": lambda r: F.gelu(x[r]), "add": lambda r: torch.add(x[r], y[r])}[op]
        timer.warmup(eager, 2)
        eager_us = statistics.median(timer.events(eager, 2, 30)[0])
        rows.append({"config": "eager", "median_us": eager_us})
        ok = sorted((r for r in rows if "median_us" in r and r["config"] != "eager"), key=lambda r: r["median_us"])
        results[op] = {"default": default, "rows": rows, "best": ok[0] if ok else None, "eager_us": eager_us}
        print(f"sweep {op}: eager {eager_us:.2f} us; top 4 {[(r['config'], round(r['median_us'], 2)) for r in ok[:4]]}")
        print(f"sweep {op}: default {default}; best {ok[0] if ok else None}; "
              f"default time {next((r['median_us'] for r in rows if tuple(r['config']) == tuple(default)), None)}",
              flush=True)
    save(out, "sweep", results)


def step_examples(out, args):
    log = open(out / "serve-examples.log", "w")
    serve = Serve(log)
    results = {}
    try:
        for op in OPS:
            results[op] = {}
            for v in (["v1_baseline", "v4_optimized"] if SMOKE else VARIANTS):
                chk = serve(command="check", **kreq(op, v, shapes=[BIG, [33, 1000]], trials=2))
                base = ["eager", "compile"] if v == "v4_optimized" else ["eager"]
                bn = serve(command="bench", **kreq(op, v, bench={"baselines": base}))
                results[op][v] = {"check": chk, "bench": bn}
                big = bn.get("sizes", [{}])[-1] if bn.get("sizes") else {}
                print(f"{op:10s} {v:13s} check {chk['verdict']:5s} rel {chk.get('max_rel_err')} | bench "
                      f"{bn['verdict']} 4096^2 {big.get('median_us')} us eager {big.get('eager_us')} "
                      f"compile {big.get('compile_us')} TB/s {big.get('achieved_tbps')}", flush=True)
    finally:
        serve.close()
    save(out, "examples", results)


def step_repeat(out, args):
    """Three benches of each v4 at 4096^2 in a row: with the defaults (at least 10 runs, more until the
    median's 95% interval is within +-0.5%), and with exactly 10 runs (precision 0)."""
    log = open(out / "serve-repeat.log", "w")
    serve = Serve(log)
    results = {}
    try:
        for label, opts in (("default", {}), ("runs=10 fixed", {"runs": 10, "precision_pct": 0})):
            for op in OPS:
                meds, runs, cis = [], [], []
                for _ in range(3):
                    r = serve(command="bench", **kreq(op, "v4_optimized", shapes=[BIG],
                                                       bench={"baselines": [], **opts}))
                    size = r["sizes"][0]
                    meds.append(size["median_us"]), runs.append(size["runs"]), cis.append(size.get("median_ci_pct"))
                key = f"{op}/{label}"
                results[key] = {"medians_us": meds, "diff_pct": (max(meds) - min(meds)) / min(meds) * 100,
                                "runs": runs, "median_ci_pct": cis}
                print(f"repeat {key}: {', '.join(f'{m:.2f}' for m in meds)} us, runs {runs}, "
                      f"max diff {results[key]['diff_pct']:.2f}%", flush=True)
    finally:
        serve.close()
    save(out, "repeat", results)


def _cycle_numbers(chk, bn, wall):
    dev = (chk["timing"].get("device_s") or 0) + (bn["timing"].get("device_s") or 0)
    comp = (chk["timing"].get("compile_s") or 0) + (bn["timing"].get("compile_s") or 0)
    warm = (chk["timing"].get("warmup_s") or 0) + (bn["timing"].get("warmup_s") or 0)
    return {"wall_s": wall, "device_s": dev, "compile_s": comp, "warmup_s": warm,
            "ratio_no_warmup": wall / (dev - warm + comp) if dev - warm + comp > 0 else None,
            "import_s": (chk["timing"].get("import_s") or 0) + (bn["timing"].get("import_s") or 0),
            "ratio": wall / (dev + comp) if dev + comp else None,
            "check_wall_s": chk["timing"]["wall_s"], "bench_wall_s": bn["timing"]["wall_s"],
            "verdicts": [chk["verdict"], bn["verdict"]]}


def step_overhead(out, args):
    """One check + bench cycle of softmax v4 with default settings: cold one-shot processes, then a warm
    serve worker (first cycle warms it, the second is measured)."""
    chk_req = kreq("softmax", "v4_optimized", shapes=[BIG])
    bn_req = kreq("softmax", "v4_optimized")
    chk, w1 = one_shot("check", chk_req)
    bn, w2 = one_shot("bench", bn_req)
    cold = _cycle_numbers(chk, bn, w1 + w2)
    log = open(out / "serve-overhead.log", "w")
    serve = Serve(log)
    try:
        warm_runs = []
        for _ in range(3):
            t0 = time.perf_counter()
            c = serve(command="check", **chk_req)
            b = serve(command="bench", **bn_req)
            warm_runs.append(_cycle_numbers(c, b, time.perf_counter() - t0))
    finally:
        serve.close()
    res = {"cold": cold, "warm_first": warm_runs[0], "warm": warm_runs[1:]}
    print(f"overhead cold: {json.dumps(cold)}", flush=True)
    for w in warm_runs:
        print(f"overhead warm: {json.dumps(w)}", flush=True)
    save(out, "overhead", res)


CHEATS = [("cheat_zeros.py", "softmax", {}), ("cheat_constant.py", "softmax", {}),
          ("cheat_partial.py", "gelu", {}), ("cheat_cached.py", "gelu", {}),
          ("cheat_delegate.py", "softmax", {}), ("cheat_delegate_only.py", "softmax", {}),
          ("cheat_side_stream.py", "softmax", {"shapes": [BIG], "edge_shapes": False, "trials": 1}),
          ("cheat_pow2.py", "gelu", {"shapes": [[64, 1024]]}),
          ("cheat_race.py", "softmax", {"shapes": [[64, 4097]], "edge_shapes": False}),
          ("cheat_uninit.py", "softmax", {}), ("cheat_modifies_input.py", "gelu", {}),
          ("cheat_lazy.py", "gelu", {}), ("vector_add_oob.cu", "gelu", {"shapes": [[1 << 20]], "trials": 1}),
          ("vector_add.cu", "add", {"shapes": [[1000], [4096, 4096]]})]


def step_anticheat(out, args):
    """Every anti-cheat fixture checked on the GPU; the side-stream one also timed."""
    sys.path.insert(0, str(ROOT / "tools" / "tests"))
    import kernel_files  # the attack kernels, written out of their bundles
    kernels = kernel_files.folder()
    log = open(out / "serve-anticheat.log", "w")
    serve = Serve(log)
    res = []
    try:
        for name, op, extra in CHEATS:
            req = {"command": "check", "kernel": str(kernels / name), "op": op, "device": "cuda", "trials": 2,
                   "shapes": [[64, 1024]], "cache_dir": str(out / "cache")}
            req.update(extra)
            r = serve(**req)
            row = {"kernel": name, "op": op, "verdict": r["verdict"], "message": r["message"][:300],
                   "determinism": (r.get("determinism") or {}).get("equal"),
                   "delegated": (r.get("delegation") or {}).get("delegated"),
                   "stream_ordered": (r.get("streams") or {}).get("ordered")}
            if name == "cheat_side_stream.py":
                b = serve(command="bench", kernel=str(kernels / name), op=op, device="cuda", shapes=[BIG],
                          bench={"baselines": []})
                s0 = (b.get("sizes") or [{}])[0]
                row["bench"] = {"verdict": b["verdict"], "stream_escape": s0.get("stream_escape"),
                                "synced_us": s0.get("synced_us"), "median_us": s0.get("median_us"),
                                "message": b["message"][:300]}
            res.append(row)
            print(f"anticheat {name:24s} {row['verdict']:12s} {row['message'][:150]}", flush=True)
    finally:
        serve.close()
    save(out, "anticheat", res)


NCU_TARGETS = [("add", [256, 256]), ("add", BIG), ("softmax", [8192, 8192]), ("layer_norm", [8192, 8192]),
               ("gelu", [8192, 8192]), ("add", [8192, 8192]), ("softmax", BIG), ("layer_norm", BIG)]
if SMOKE:
    NCU_TARGETS = NCU_TARGETS[:3]


def _target_call(op, shape):
    import torch
    mod = load(TEMPLATES / op / "v4_optimized.py")
    fn = getattr(mod, f"triton_{op}")
    x = torch.randn(shape, device="cuda")
    if op == "add":
        y = torch.randn(shape, device="cuda")
        return lambda: fn(x, y, 1.0)
    if op == "layer_norm":
        w, b = torch.randn(shape[-1], device="cuda"), torch.randn(shape[-1], device="cuda")
        return lambda: fn(x, w, b, 1e-5)
    return lambda: fn(x)


def step_ncu_targets(out, args):
    """Run under ncu: each target once inside an NVTX range 'kgo_run' (after a warm-up outside it)."""
    import torch
    for op, shape in NCU_TARGETS:
        call = _target_call(op, shape)
        call()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push("kgo_run")
        call()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        print(f"ncu target {op} {shape}", flush=True)


def step_timing(out, args):
    """The harness's median for each ncu target (default mode choice, then events and graph forced), and
    plain triton.testing.do_bench for comparison."""
    import torch
    import triton.testing
    log = open(out / "serve-timing.log", "w")
    serve = Serve(log)
    res = []
    try:
        for op, shape in NCU_TARGETS:
            row = {"op": op, "shape": shape}
            for mode in ("auto", "off", "on"):
                r = serve(command="bench", **kreq(op, "v4_optimized", shapes=[shape],
                                                   bench={"baselines": [], "graph": mode, "runs": 50}))
                s = r["sizes"][0]
                row[f"harness_{mode}_us"] = s["median_us"]
                row[f"harness_{mode}_mode"] = s["mode"]
                row[f"harness_{mode}_iqr_us"] = s["iqr_us"]
            call = _target_call(op, shape)
            row["do_bench_us"] = triton.testing.do_bench(call, warmup=25, rep=100, return_mode="median") * 1e3
            res.append(row)
            print(f"timing {op} {shape}: {json.dumps(row)}", flush=True)
    finally:
        serve.close()
    save(out, "timing", res)


# ----------------------------------------------------------------------------------------------------
def parse_ncu(path):
    """gpu__time_duration.sum per profiled kernel, in launch order, from `ncu --csv` (one row per metric)."""
    import csv
    rows = []
    if not path.is_file():
        return rows
    lines = [ln for ln in path.read_text(errors="replace").splitlines() if ln.startswith('"')]
    header = None
    for rec in csv.reader(lines):
        if header is None:
            if "Kernel Name" in rec:
                header = rec
            continue
        d = dict(zip(header, rec))
        if d.get("Metric Name") == "gpu__time_duration.sum":
            value, unit = d.get("Metric Value", "").replace(",", ""), d.get("Metric Unit", "ns")
        elif "gpu__time_duration.sum" in d:
            value, unit = d["gpu__time_duration.sum"].replace(",", ""), "ns"
        else:
            continue
        scale = {"ns": 1.0, "nsecond": 1.0, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6}.get(unit, 1.0)
        try:
            rows.append({"kernel": d.get("Kernel Name"), "ns": float(value) * scale})
        except ValueError:
            pass
    return rows


def fmt(x, nd=2):
    return "-" if x is None else f"{x:.{nd}f}"


def step_report(out, args):
    data = {p.stem: json.loads(p.read_text()) for p in (out / "data").glob("*.json")}
    date = args.date
    copy = data.get("copy", {})
    ceiling = copy.get("tbps")
    lines = [f"# Harness evidence on the H200 ({date})", "",
             f"Command: `{args.command}` (device tool, one call). Device: {copy.get('device')} "
             f"({copy.get('sms')} SMs, L2 {copy.get('l2_bytes')} B), torch {copy.get('torch')}, triton "
             f"{copy.get('triton')}.", ""]
    env_path = out / "env.json"
    if env_path.is_file():
        env = json.loads(env_path.read_text())
        lines += [f"Harness `env`: verdict {env.get('verdict')}; driver {env.get('driver')}, CUDA (torch) "
                  f"{env.get('cuda')}, nvcc {(env.get('nvcc') or {}).get('version')}, ncu "
                  f"{(env.get('ncu') or {}).get('version')}, clocks {env.get('clocks')}.", ""]
    if ceiling:
        lines += [f"Copy ceiling measured in this run: **{ceiling:.3f} TB/s** (1 GiB fp32 `copy_`, read + write "
                  f"bytes, median of 30 CUDA-event timings).", ""]
    pytest_log = out / "pytest-gpu.log"
    if pytest_log.is_file():
        tail = [ln for ln in pytest_log.read_text().splitlines() if ln.strip()][-1:]
        lines += [f"GPU tests (`python3 -m pytest -q tools/tests -k \"cuda or gpu or side_stream\"`): "
                  f"{tail[0] if tail else 'no output'}", ""]
    ex = data.get("examples", {})
    if ex:
        lines += ["## Examples at 4096x4096 fp32 (harness bench: events, L2 flush, rotation, median to +-0.5%)", "",
                  "| op | variant | check | us | eager us | compile us | x eager | x compile | TB/s | % copy ceiling |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for op, vs in ex.items():
            for v, r in vs.items():
                s = (r["bench"].get("sizes") or [{}])[-1]
                pct = s.get("achieved_tbps") / ceiling * 100 if ceiling and s.get("achieved_tbps") else None
                lines.append(f"| {op} | {v} | {r['check']['verdict']} | {fmt(s.get('median_us'))} | "
                             f"{fmt(s.get('eager_us'))} | {fmt(s.get('compile_us'))} | "
                             f"{fmt(s.get('speedup_vs_eager'))} | {fmt(s.get('speedup_vs_compile'))} | "
                             f"{fmt(s.get('achieved_tbps'), 3)} | {fmt(pct, 1)} |")
        lines.append("")
        clk = [(op, v, r["bench"].get("clocks") or {}) for op, vs in ex.items() for v, r in vs.items()]
        names = sorted({n for _, _, c in clk for k in ("before", "after") for n in ((c.get(k) or {}).get(
            "throttle_names") or [])})
        sms = [(c.get(k) or {}).get("sm_mhz") for _, _, c in clk for k in ("before", "after")]
        sms = [x for x in sms if x]
        if sms:
            lines += [f"Clocks recorded around every bench (source {clk[0][2].get('source')}): SM {min(sms):g}-"
                      f"{max(sms):g} MHz; throttle reasons seen: {', '.join(names) or 'none'}.", ""]
        targets = {"softmax": 1.4, "layer_norm": 1.4, "gelu": 0.97, "add": 0.97}
        lines += ["Targets (v4_optimized): speedup vs eager and >= 85% of the copy ceiling:", ""]
        for op, need in targets.items():
            s = (ex.get(op, {}).get("v4_optimized", {}).get("bench", {}).get("sizes") or [{}])[-1]
            sp = s.get("speedup_vs_eager")
            pct = s.get("achieved_tbps") / ceiling * 100 if ceiling and s.get("achieved_tbps") else None
            ok = sp is not None and pct is not None and sp >= need and pct >= 85
            lines.append(f"- {op}: {fmt(sp)}x eager (target {need}x), {fmt(pct, 1)}% of copy ceiling: "
                         f"{'met' if ok else 'NOT met'}")
        lines.append("")
    ac = data.get("anticheat", [])
    if ac:
        lines += ["## Anti-cheat fixtures checked on the GPU (tools/tests/kernels)", "",
                  "| kernel | op | verdict | why |", "|---|---|---|---|"]
        for r in ac:
            why = r["message"].replace("|", "/")
            if r.get("bench"):
                why += f" — bench: {r['bench']['verdict']}, stream_escape={r['bench']['stream_escape']}, " \
                       f"synced {fmt(r['bench']['synced_us'])} us vs {fmt(r['bench']['median_us'])} us"
            lines.append(f"| {r['kernel']} | {r['op']} | {r['verdict']} | {why} |")
        lines.append("")
    rep = data.get("repeat", {})
    if rep:
        lines += ["## Repeatability (three benches in a row, 4096x4096, v4; defaults, and exactly 10 runs)",
                  "", "| op / settings | medians us | runs taken | median 95% CI +-% | max diff % |",
                  "|---|---|---|---|---|"]
        for op, r in rep.items():
            lines.append(f"| {op} | {', '.join(fmt(m) for m in r['medians_us'])} | "
                         f"{', '.join(str(n) for n in r['runs'])} | "
                         f"{', '.join(fmt(c) for c in r['median_ci_pct'])} | {fmt(r['diff_pct'])} |")
        lines.append("")
    ncu = parse_ncu(out / "ncu.csv")
    tim = data.get("timing", [])
    if tim:
        lines += ["## Agreement with Nsight Compute (gpu__time_duration, --clock-control none)", "",
                  "| kernel | shape | ncu us | harness us (mode) | diff % | events us | graph us | do_bench us |",
                  "|---|---|---|---|---|---|---|---|"]
        for i, row in enumerate(tim):
            n_us = ncu[i]["ns"] / 1e3 if i < len(ncu) else None
            h = row["harness_auto_us"]
            diff = (h - n_us) / n_us * 100 if n_us else None
            lines.append(f"| {row['op']} v4 | {'x'.join(map(str, row['shape']))} | {fmt(n_us)} | {fmt(h)} "
                         f"({row['harness_auto_mode']}) | {fmt(diff, 1)} | {fmt(row['harness_off_us'])} | "
                         f"{fmt(row['harness_on_us'])} | {fmt(row['do_bench_us'])} |")
        if not ncu:
            lines.append("\nncu produced no rows in this run (see ncu.log).")
        else:
            big = [(row, ncu[i]["ns"] / 1e3) for i, row in enumerate(tim) if i < len(ncu) and ncu[i]["ns"] >= 50e3]
            worst = max((abs(r["harness_auto_us"] - n) / n * 100 for r, n in big), default=None)
            lines += ["", f"- kernels of 50 us or more by ncu ({len(big)}): largest difference {fmt(worst, 1)}% "
                          f"(target 3%): {'met' if worst is not None and worst <= 3 else 'NOT met'}"]
            tiny = next(((row, ncu[i]["ns"] / 1e3) for i, row in enumerate(tim)
                         if row["shape"] == [256, 256] and i < len(ncu)), None)
            if tiny:
                r, n = tiny
                lines.append(f"- 256x256 add: graph mode {fmt(r['harness_on_us'])} us vs ncu {fmt(n)} us: "
                             f"{fmt(abs(r['harness_on_us'] - n))} us apart (target 1.5 us): "
                             f"{'met' if abs(r['harness_on_us'] - n) <= 1.5 else 'NOT met'}; plain do_bench "
                             f"{fmt(r['do_bench_us'])} us, plain events {fmt(r['harness_off_us'])} us")
        lines.append("")
    ov = data.get("overhead")
    if ov:
        lines += ["## Overhead of one check + bench cycle (softmax v4, default settings)", "",
                  "| run | wall s | check wall s | bench wall s | device s | of which warm-up s | compile s | "
                  "import s | wall / (device + compile) | same, warm-up not counted as irreducible |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for name, r in [("cold (two one-shot processes)", ov["cold"]), ("warm, first cycle", ov["warm_first"])] + \
                [(f"warm, cycle {i + 2}", r) for i, r in enumerate(ov["warm"])]:
            lines.append(f"| {name} | {fmt(r['wall_s'], 3)} | {fmt(r['check_wall_s'], 3)} | "
                         f"{fmt(r['bench_wall_s'], 3)} | {fmt(r['device_s'], 3)} | {fmt(r.get('warmup_s'), 3)} | "
                         f"{fmt(r['compile_s'], 3)} | {fmt(r['import_s'], 3)} | {fmt(r['ratio'])} | "
                         f"{fmt(r.get('ratio_no_warmup'))} |")
        lines += ["", "device s: CUDA-event time of everything the harness ran on the GPU (kernel and reference "
                      "calls, warm-up, timed samples, L2 flushes, holds); compile s: first calls (Triton JIT) and "
                      "torch.compile of the baseline; import s: starting the worker (importing torch). Target: "
                      "a warm cycle at most 2x device + compile."]
        lines.append("")
    (out / f"harness-h200-{date}.md").write_text("\n".join(lines) + "\n")
    for op, vs in ex.items():
        od = out / "examples" / op
        od.mkdir(parents=True, exist_ok=True)
        rows = ["| variant | check | size | mode | median us | IQR us | eager us | torch.compile us | x eager | "
                "TB/s | % copy ceiling |", "|---|---|---|---|---|---|---|---|---|---|---|"]
        best = None
        for v, r in vs.items():
            chk = r["check"]
            for s_ in r["bench"].get("sizes") or []:
                pct = s_["achieved_tbps"] / ceiling * 100 if ceiling and s_.get("achieved_tbps") else None
                rows.append(f"| {v} | {chk['verdict']} (max rel_err {(chk.get('max_rel_err') or 0):.2g}) | "
                            f"{'x'.join(map(str, s_['shape']))} | {s_['mode']} | {fmt(s_['median_us'])} | "
                            f"{fmt(s_['iqr_us'])} | {fmt(s_.get('eager_us'))} | {fmt(s_.get('compile_us'))} | "
                            f"{fmt(s_.get('speedup_vs_eager'))} | {fmt(s_.get('achieved_tbps'), 3)} | {fmt(pct, 1)} |")
            final = r["bench"].get("final_mean_us")
            if chk["verdict"] == "PASS" and r["bench"]["verdict"] == "PASS" and final and (
                    best is None or final < best[1]):
                best = (v, final)
        finals = ", ".join(f"{v} {fmt(r['bench'].get('final_mean_us'))} us" for v, r in vs.items())
        (od / f"harness-h200-{date}.md").write_text(
            f"# {op}: the four variants on the H200 ({date})\n\n"
            f"Command: `{args.command}`, step `examples` of bench/harness_h200.py: for each variant the harness "
            f"`check` (op mode, reference ref.py in float64; shapes 4096x4096, 33x1000 and the edge shapes; "
            f"2 trials) and `bench` (256^2, 1024^2, 4096^2 fp32; median of at least 10 runs, more until its 95% "
            f"interval is within +-0.5%; eager baseline for all, "
            f"torch.compile for v4). Copy ceiling in the same run: {fmt(ceiling, 3)} TB/s.\n\n"
            + "\n".join(rows) + f"\n\nThe seed's final figure (mean of the per-size means): {finals}. "
            f"Fastest correct variant by that figure: {best[0] if best else '-'}.\n"
            f"Raw harness results: harness-h200-{date}.json.\n")
        (od / f"harness-h200-{date}.json").write_text(json.dumps(vs, indent=1))
    print("\n".join(lines), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("step")
    ap.add_argument("--out", required=True)
    ap.add_argument("--date", default=datetime.date.today().isoformat())
    ap.add_argument("--command", default="bench/harness_h200.sh")
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    globals()[f"step_{args.step.replace('-', '_')}"](out, args)


if __name__ == "__main__":
    main()
