"""Does the warm-up credit (timing.HOT_WINDOW_S) change the baselines' figures? One warm `serve` harness benches
a kernel and its eager and torch.compile baselines, alternating `warmup_credit` on and off, ROUNDS times each,
and prints each side's baseline medians, their spread, and the bench's wall time.
Usage (repo root, GPU machine): python3 bench/warmup_credit_probe.py [ROUNDS] [OP] [N]   (defaults 8 softmax 4096)"""
import json
import statistics
import subprocess
import sys
import time

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 8
op = sys.argv[2] if len(sys.argv) > 2 else "softmax"
n = int(sys.argv[3]) if len(sys.argv) > 3 else 4096
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
