"""`kgo ceiling` against PyTorch's own copy / read / fill / triad bandwidth and cuBLAS matmul, in the same run.

Usage: python3 bench/ceiling_vs_torch.py KGO [kgo ceiling options...]   (JSON on stdout, table on stderr)
Order: PyTorch pass, `KGO ceiling --json ...`, PyTorch pass again; the best of both PyTorch passes is compared.
Bandwidth counts bytes read plus bytes written (copy 2x, triad 3x the array); matmul counts 2*N^3 FLOP.
Targets: ceiling's best bandwidth pattern >= PyTorch's best; bf16 tensor peak within 5% of torch's.
"""
import datetime
import json
import statistics
import subprocess
import sys
import time

import torch


def median_ms(fn, warmup, reps):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def torch_pass(array_bytes, reps):
    n = array_bytes // 4
    out = {}
    a = torch.rand(n, device="cuda")
    b = torch.rand(n, device="cuda")
    c = torch.empty(n, device="cuda")
    patterns = {
        "copy": (lambda: c.copy_(a), 2),
        "read": (lambda: a.sum(), 1),
        "write": (lambda: c.fill_(1.0), 1),
        "triad": (lambda: torch.add(a, b, alpha=2.0, out=c), 3),
    }
    for name, (fn, arrays) in patterns.items():
        ms = median_ms(fn, 3, reps)
        out["bw_" + name] = arrays * array_bytes / (ms * 1e-3)
    del a, b, c
    torch.cuda.empty_cache()
    for dtype, label in ((torch.bfloat16, "bf16"), (torch.float16, "fp16")):
        for size in (4096, 8192, 16384):
            x = torch.rand(size, size, device="cuda", dtype=dtype) * 2 - 1
            y = torch.rand(size, size, device="cuda", dtype=dtype) * 2 - 1
            z = torch.empty(size, size, device="cuda", dtype=dtype)
            ms = median_ms(lambda: torch.matmul(x, y, out=z), 9, reps)
            out[f"{label}_{size}"] = 2.0 * size ** 3 / (ms * 1e-3)
            del x, y, z
        torch.cuda.empty_cache()
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    kgo, extra = sys.argv[1], sys.argv[2:]
    array_bytes, reps = 4 << 30, 20
    t0 = time.time()
    first = torch_pass(array_bytes, reps)
    proc = subprocess.run([kgo, "ceiling", "--json", *extra], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        sys.exit(f"kgo ceiling failed with exit {proc.returncode}")
    ceiling = json.loads(proc.stdout)
    second = torch_pass(array_bytes, reps)
    fig = {f["metric"]: f["value"] for f in ceiling["figures"]}
    best = {k: max(first[k], second[k]) for k in first}
    torch_bw_best = max((v, k) for k, v in best.items() if k.startswith("bw_"))
    torch_bf16_best = max((v, k) for k, v in best.items() if k.startswith("bf16_"))
    torch_fp16_best = max((v, k) for k, v in best.items() if k.startswith("fp16_"))
    result = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join(["python3", "bench/ceiling_vs_torch.py", *sys.argv[1:]]),
        "gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
        "array_bytes": array_bytes, "repeats": reps,
        "torch_first": first, "torch_second": second, "kgo_ceiling": ceiling,
        "compare": {
            "bandwidth": {"kgo_best": fig.get("hbm_bandwidth"), "torch_best": torch_bw_best[0],
                          "torch_best_pattern": torch_bw_best[1],
                          "ratio": fig.get("hbm_bandwidth", 0) / torch_bw_best[0],
                          "target": "ratio >= 1"},
            "bf16": {"kgo": fig.get("bf16_tensor"), "torch_best": torch_bf16_best[0],
                     "torch_best_size": torch_bf16_best[1], "ratio": fig.get("bf16_tensor", 0) / torch_bf16_best[0],
                     "target": "ratio within 0.95..1.05"},
            "fp16": {"kgo": fig.get("fp16_tensor"), "torch_best": torch_fp16_best[0],
                     "ratio": fig.get("fp16_tensor", 0) / torch_fp16_best[0]},
        },
        "seconds": time.time() - t0,
    }
    print(json.dumps(result, indent=1))
    rows = [("pattern", "kgo ceiling", "torch pass 1", "torch pass 2")]
    for p in ("copy", "read", "write", "triad"):
        rows.append((f"{p} TB/s", f"{fig.get('hbm_bandwidth_' + p, 0) / 1e12:.3f}", f"{first['bw_' + p] / 1e12:.3f}",
                     f"{second['bw_' + p] / 1e12:.3f}"))
    for label in ("bf16", "fp16"):
        for size in (4096, 8192, 16384):
            k = [l for l in ceiling["lines"] if l["metric"] == f"info_{label}_tensor_n" and l.get("n") == size]
            rows.append((f"{label} {size}^3 TFLOPS", f"{k[0]['value'] / 1e12:.1f}" if k else "-",
                         f"{first[f'{label}_{size}'] / 1e12:.1f}", f"{second[f'{label}_{size}'] / 1e12:.1f}"))
    for r in rows:
        sys.stderr.write(f"{r[0]:<22}{r[1]:>14}{r[2]:>14}{r[3]:>14}\n")
    c = result["compare"]
    sys.stderr.write(f"best bandwidth: kgo {c['bandwidth']['kgo_best'] / 1e12:.3f} TB/s vs torch "
                     f"{c['bandwidth']['torch_best'] / 1e12:.3f} ({c['bandwidth']['torch_best_pattern']}): "
                     f"ratio {c['bandwidth']['ratio']:.3f} (target >= 1)\n")
    sys.stderr.write(f"bf16 tensor: kgo {c['bf16']['kgo'] / 1e12:.1f} vs torch {c['bf16']['torch_best'] / 1e12:.1f} "
                     f"TFLOPS: ratio {c['bf16']['ratio']:.3f} (target 0.95..1.05)\n")


if __name__ == "__main__":
    main()
