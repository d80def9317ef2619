#!/usr/bin/env bash
# kgo sweep's local backend on every GPU of one machine against the same sweep pinned to one GPU, in one run:
# 0. unless SWEEP_WARMUP=0, the sweep once on GPU 0, not compared: it fills the compile caches, which the first timed
#    sweep would otherwise pay alone (a cold first run on 2 x H200 gave 0.87 against 0.56 warm);
# 1. the 24-job examples sweep (bench/sweep_h200.sh) with one worker per visible GPU, nvidia-smi sampled
#    every 200 ms; 2. the same sweep with GPUS=0.
# Evidence in $OUT: all/ and one/ (each sweep's files), smi-all.csv, smi-one.csv, summary.md.
# Usage (GPU machine, repo root, .device-carry/ from scripts/device-pack.sh):  OUT=$OUT bench/sweep_multi_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:?set OUT}
mkdir -p "$OUT"
n=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | wc -l)
echo "$(date -u) GPUs visible: $n"
if [ "$n" -lt 2 ]; then echo "skip: this machine has $n GPU(s); the comparison needs at least 2"; exit 0; fi
run() {  # name, GPUS value ('' = every visible GPU)
  local name=$1
  nvidia-smi --query-gpu=timestamp,index,uuid,utilization.gpu,memory.used --format=csv,noheader -lms 200 \
    > "$OUT/smi-$name.csv" 2>/dev/null &
  local smi=$!
  GPUS=$2 SWEEP_QUICK=1 SWEEP_WORK=$OUT/work-$name OUT=$OUT/$name bench/sweep_h200.sh > /dev/null 2>&1
  local rc=$?
  kill "$smi" 2>/dev/null; wait "$smi" 2>/dev/null
  echo "$name: sweep_h200.sh exit $rc"
}
if [ "${SWEEP_WARMUP:-1}" != 0 ]; then
  GPUS=0 SWEEP_QUICK=1 SWEEP_WORK=$OUT/work-warmup OUT=$OUT/warmup bench/sweep_h200.sh > /dev/null 2>&1
  echo "warmup: sweep_h200.sh exit $?"
fi
run all ""
run one 0
python3 bench/sweep_multi_gpu_summary.py "$OUT" | tee "$OUT/summary.md"
