#!/usr/bin/env bash
# Where a cold check's time goes in the judge: one-shot `check` of templates/ops/softmax/v1_baseline.py at 4096x4096
# (+ edge shapes, 3 trials) on the GPU (else the CPU at 256x256), run twice (the second with Triton's cache warm), with
# KGO_HARNESS_PROFILE: prints the harness timing (kernel_<op>_s) and the judge's 25 most expensive calls; then the same
# check three times and a bench twice through one warm `serve` harness, with the profile of the last check and bench.
# Usage (repo root, device tool or here): OUT=$OUT bench/judge_profile.sh   Writes $OUT/judge-profile/.
set -u
cd "$(dirname "$0")/.."
D=${OUT:-/tmp}/judge-profile; mkdir -p "$D"
DEV=cuda; SHAPE=4096
python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null || { DEV=cpu; SHAPE=256; }
{
echo "command: bench/judge_profile.sh; date: $(date -u +%FT%TZ); device: $DEV"
for run in 1 2; do
  req="{\"kernel\": \"$PWD/templates/ops/softmax/v1_baseline.py\", \"op\": \"softmax\", \"device\": \"$DEV\", \"shapes\": [[$SHAPE, $SHAPE]]}"
  start=$(date +%s%N)
  echo "$req" | KGO_HARNESS_PROFILE="$D/judge-$run.prof" python3 tools/kgo_harness check > "$D/result-$run.json" 2> "$D/stderr-$run.txt"
  echo "== run $run: $(( ($(date +%s%N) - start) / 1000000 )) ms wall (process)"
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r['verdict'], json.dumps({k: round(v, 3) for k, v in r['timing'].items() if isinstance(v, (int, float))}))" "$D/result-$run.json"
  python3 -c "import pstats,sys; pstats.Stats(sys.argv[1]).sort_stats('cumulative').print_stats(25)" "$D/judge-$run.prof" | grep -E '^ +[0-9]' | cut -c1-160
done
echo "== warm: one serve harness, check x3 then bench x2 (profiles of requests 3 and 5)"
KGO_HARNESS_PROFILE="$D/warm.prof" python3 - "$PWD" "$DEV" "$SHAPE" <<'PY'
import json, subprocess, sys, time
root, dev, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
base = {"kernel": f"{root}/templates/ops/softmax/v1_baseline.py", "op": "softmax", "device": dev, "shapes": [[n, n]]}
reqs = [dict(base, command="check")] * 3 + [dict(base, command="bench", bench={"baselines": ["eager"]})] * 2
p = subprocess.Popen([sys.executable, "tools/kgo_harness", "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     stderr=subprocess.DEVNULL, text=True)
for r in reqs:
    t = time.perf_counter()
    p.stdin.write(json.dumps(r) + "\n"); p.stdin.flush()
    res = json.loads(p.stdout.readline())
    waits = {k: round(v, 4) for k, v in res["timing"].items() if isinstance(v, float) and v > 0.0005}
    print(r["command"], res["verdict"], f"{time.perf_counter() - t:.3f} s", waits)
p.stdin.write('{"command": "shutdown"}\n'); p.stdin.flush(); p.wait()
PY
for n in 3 5; do
  echo "-- request $n, by own time"
  python3 -c "import pstats,sys; pstats.Stats(sys.argv[1]).sort_stats('tottime').print_stats(22)" "$D/warm.prof.$n" | grep -E '^ +[0-9]' | cut -c1-160
  echo "-- request $n, cumulative"
  python3 -c "import pstats,sys; pstats.Stats(sys.argv[1]).sort_stats('cumulative').print_stats(30)" "$D/warm.prof.$n" | grep -E '^ +[0-9]' | grep kgo_harness | cut -c1-160
done
} 2>&1 | tee "$D/summary.txt"
