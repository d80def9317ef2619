#!/usr/bin/env bash
# H200 evidence for the judge's process boundary (bench/judge_h200.py does the work):
#   honest  every honest kernel in examples/ and templates/ops/, 10 complete check+bench runs: no REWARD_HACK,
#           no FAIL, no side-stream flag (skeleton folders with unfilled placeholders are listed as skipped);
#   cheats  the timing cheats (timer patches, also ones blinding the in-process check; side streams) caught;
#   cycle   the warm check+bench cycle and the cold check of examples/softmax at 4096², the new kgo and the
#           old tree's (f8d3c3e) alternating, with new/old ratios;
#   lies    how far a forged timer goes (1.15-3x at four sizes; named only, never in the default three).
# Usage: bench/judge_h200.sh OUTDIR [honest] [cheats] [cycle] [lies]   (none named: the first three; one command
#        has 600 s, so on the H200 run `honest` alone, then `cheats cycle`)
# Binaries are prebuilt, never built on the device (it lacks kgo's -dev packages and the git history):
#   KGO_NEW       the new kgo (default .device-carry/kgo, made by scripts/device-pack.sh)
#   KGO_OLD_TREE  the old tree with its own packed kgo at $KGO_OLD_TREE/.device-carry/kgo, made by
#                 scripts/pack-old-tree.sh f8d3c3e .device-carry-old; unset or absent: old-vs-new skipped, said so.
# JUDGE_DEVICE=cpu runs the script's own path on the CPU (tiny shapes; numbers mean nothing; GPU cheats skipped).
# JUDGE_RUNS (default 10) and JUDGE_DEADLINE (default 480 s: no honest run starts later) bound `honest`.
set -u
OUT=${1:-/tmp/judge-h200}
shift || true
PHASES=${*:-honest cheats cycle}
mkdir -p "$OUT"
cd "$(dirname "$0")/.."
DEV=${JUDGE_DEVICE:-cuda}
KGO_NEW=${KGO_NEW:-.device-carry/kgo}
export KGO_NEW KGO_OLD_TREE=${KGO_OLD_TREE:-}
export PYTHONUNBUFFERED=1
step() { echo; echo "=== $1 ($(date -u +%H:%M:%S))"; }
{
  step "machine"
  date -u; echo "command: bench/judge_h200.sh \$OUT $PHASES (device: $DEV; KGO_NEW=$KGO_NEW; KGO_OLD_TREE=${KGO_OLD_TREE:-unset})"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv 2>/dev/null || echo "no nvidia-smi"
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
  git log -1 --format='tree: %h %s' 2>/dev/null || echo "tree: no git history here"
  for phase in $PHASES; do
    case $phase in
      honest)
        step "honest kernels, ${JUDGE_RUNS:-10} complete runs"
        timeout 590 python3 bench/judge_h200.py honest --out "$OUT" --device "$DEV" --runs "${JUDGE_RUNS:-10}" \
          --deadline "${JUDGE_DEADLINE:-480}"
        echo "honest exit $?" ;;
      cheats)
        step "timing cheats"
        timeout 120 python3 bench/judge_h200.py cheats --out "$OUT" --device "$DEV"
        echo "cheats exit $?" ;;
      lies)
        step "forged timers, 1.15-3x, four sizes, ${JUDGE_RUNS:-2} rounds"
        timeout 300 python3 bench/judge_h200.py lies --out "$OUT" --device "$DEV" --runs "${JUDGE_RUNS:-2}"
        echo "lies exit $?" ;;
      cycle)
        step "warm cycle and cold check, examples/softmax: new vs old, alternating"
        timeout 450 python3 bench/judge_h200.py cycle --out "$OUT" --device "$DEV" --rounds 2 --cycles 3
        echo "cycle exit $?" ;;
      *) echo "unknown phase '$phase' (honest, cheats, cycle, lies)" ;;
    esac
  done
  step "done"
} 2>&1 | tee -a "$OUT/run.log"
