#!/usr/bin/env bash
# Where a cold check's time goes in the judge: one-shot `check` of templates/ops/softmax/v1_baseline.py at 4096x4096
# (+ edge shapes, 3 trials) on the GPU (else the CPU at 256x256), run twice (the second with Triton's cache warm), with
# KGO_HARNESS_PROFILE: prints the harness timing (kernel_<op>_s) and the judge's 25 most expensive calls.
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
} 2>&1 | tee "$D/summary.txt"
