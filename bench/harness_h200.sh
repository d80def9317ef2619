#!/usr/bin/env bash
# H200 evidence for kgo's Python harness: GPU anti-cheat tests, the example kernels timed by the
# harness beside PyTorch eager / torch.compile and the copy ceiling of the same run, agreement with Nsight
# Compute, repeatability, and cold vs warm overhead of a check + bench cycle.
# Usage: bench/harness_h200.sh OUTDIR     (device tool: bench/harness_h200.sh "$OUT")
# HARNESS_SWEEP=1 adds a sweep of the v4 launch settings; HARNESS_SMOKE=1 runs a shorter first pass.
# Writes OUTDIR/harness-h200-<date>.md (the summary), OUTDIR/run.log and OUTDIR/results.tgz (all data).
set -u
OUT=${1:-/tmp/harness-h200}
mkdir -p "$OUT"
cd "$(dirname "$0")/.."
DATE=$(date -u +%Y-%m-%d)
CMD="bench/harness_h200.sh \$OUT (device tool, nvidia-h200)"
PY="python3 bench/harness_h200.py"
export PYTHONUNBUFFERED=1
step() { echo; echo "=== $1 ($(date -u +%H:%M:%S))"; }
{
  step "machine"
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
    --format=csv || true
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
  step "harness env"
  echo '{"device": "cuda"}' | timeout 120 python3 tools/kgo_harness env > "$OUT/env.json"
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["verdict"], r["message"]); print({k: r.get(k) for k in ("gpu","driver","cuda","torch","triton","nvcc","ncu","clocks")})' "$OUT/env.json"
  step "copy ceiling";   timeout 120 $PY copy --out "$OUT"
  [ "${HARNESS_SWEEP:-0}" = 1 ] && { step "v4 sweep"; timeout 240 $PY sweep --out "$OUT"; }
  step "GPU anti-cheat and GPU harness tests (pytest)"
  timeout 400 python3 -m pytest -q -p no:cacheprovider -rs tools/tests -k "cuda or gpu or side_stream" \
    > "$OUT/pytest-gpu.log" 2>&1; tail -25 "$OUT/pytest-gpu.log"
  step "anti-cheat on the GPU"; timeout 300 $PY anticheat --out "$OUT"
  step "examples";       timeout 500 $PY examples --out "$OUT"
  [ "${HARNESS_SMOKE:-0}" = 1 ] || { step "repeatability"; timeout 200 $PY repeat --out "$OUT"; }
  step "timing vs ncu targets"; timeout 300 $PY timing --out "$OUT"
  step "ncu"
  timeout 300 ncu --clock-control none --nvtx --nvtx-include "kgo_run/" --metrics gpu__time_duration.sum \
    --csv --print-units base python3 bench/harness_h200.py ncu_targets --out "$OUT" > "$OUT/ncu.csv" \
    2> "$OUT/ncu.log"; echo "ncu exit $?"; grep -c '"' "$OUT/ncu.csv"; tail -3 "$OUT/ncu.log"
  [ "${HARNESS_SMOKE:-0}" = 1 ] || { step "overhead"; timeout 400 $PY overhead --out "$OUT"; }
  step "report"
  $PY report --out "$OUT" --date "$DATE" --command "$CMD"
} 2>&1 | tee "$OUT/run.log"
tar czf "$OUT/results.tgz" -C "$OUT" --exclude results.tgz . 2>/dev/null
ls -la "$OUT"
