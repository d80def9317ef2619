#!/usr/bin/env bash
# kgo end to end on a GPU machine (the C++ side of the harness): env -> init -> spec auto ->
# roofline -> check -> bench -> baseline on examples/softmax, the verdicts on planted kernels (wrong,
# crashing, sleeping, and a baseline that must refuse to commit), then `kgo ops` on the seed's ops.
# Usage (repo root, on the GPU machine):
#   scripts/device-pack.sh                      # here: builds kgo into .device-carry/
#   KGO=.device-carry/kgo OUT=$OUT bench/kgo_h200_e2e.sh          # there (device tool: carry .device-carry)
#   PHASES="env softmax verdicts" ... / PHASES="ops" ...         # split it when one call must stay short
# Everything lands in $OUT/kgo_e2e.tar.gz (re-packed after every phase, so a cut-short run still returns
# what it did); README.md inside lists each command, its exit status and wall time.
# Typical cost on an H200: env+softmax+verdicts about 4 min, ops (4 ops x 4 variants, 3 sizes) about 6 min.
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
KGO=$(realpath "${KGO:-.device-carry/kgo}")
OUT=${OUT:-/tmp/kgo_e2e_out}
PHASES=${PHASES:-env softmax verdicts ops}
OPS=${OPS:-softmax,layernorm,gelu,add}
want() { [[ " $PHASES " == *" $1 "* ]]; }
R=/tmp/kgo_e2e
WS=/tmp/kgo_e2e_ws
rm -rf "$R" "$WS"
mkdir -p "$R" "$WS" "$OUT"
export KGO_DATA_DIR=${KGO_DATA_DIR:-$REPO}
pack() { tar czf "$OUT/kgo_e2e.tar.gz" -C /tmp kgo_e2e; }
phase() { echo; echo "=== $(date -u +%H:%M:%S) $*"; echo "| $* | | |" >> "$R/README.md"; }
# run NAME CMD...: runs a kgo command, keeps stdout in $R/NAME.out (JSON when --json), stderr in NAME.err.
run() {
  local name=$1; shift
  local t0=$SECONDS
  "$@" > "$R/$name.out" 2> "$R/$name.err"
  local rc=$?
  echo "$name: exit $rc, $((SECONDS - t0)) s: $*"
  local cmd="$*"
  cmd=${cmd/#"$KGO"/kgo}
  echo "| \`$cmd\` | $rc | $((SECONDS - t0)) s |" | sed "s|$WS|<ws>|g; s|$R|<results>|g" >> "$R/README.md"
  tail -3 "$R/$name.err"
  return $rc
}
exec > >(tee "$R/log.txt") 2>&1

{
  echo "# kgo end-to-end run ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
  echo
  echo "Script: bench/kgo_h200_e2e.sh, PHASES=\"$PHASES\". Outputs beside this file: <name>.out / <name>.err."
  echo
  echo "| command | exit | wall |"
  echo "|---|---|---|"
} > "$R/README.md"

phase "machine"
date -u
nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.mem,power.draw --format=csv
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
"$KGO" --version

if want env; then
  phase "kgo env"
  run env "$KGO" env --out "$R/env_check.md" --json
  pack
fi

if want softmax; then
  phase "softmax workspace: init, spec auto, roofline, check, bench, baseline"
  run init "$KGO" init softmax examples/softmax/kernel.py --platform H200 --reference templates/ops/softmax/ref.py \
    --shape 4096x4096 --dir "$WS" --json
  W="$WS/kernel_opt_softmax"
  run spec_auto "$KGO" spec auto --workspace "$W"
  run roofline "$KGO" roofline --workspace "$W" --op softmax --shape 256x256 --shape 1024x1024 --shape 4096x4096 \
    --dtype fp32 --json
  run check "$KGO" check --workspace "$W" --json
  run bench "$KGO" bench --workspace "$W" --json
  cp "$W/benchmark.md" "$R/benchmark_bench.md" 2>/dev/null
  cp "$W/memory/v0.json" "$R/v0_after_bench.json" 2>/dev/null
  run baseline "$KGO" baseline --workspace "$W" --json
  for f in baseline_report.md benchmark.md roofline.json specs.json memory/v0.json; do
    cp "$W/$f" "$R/$(basename "$f")" 2>/dev/null
  done
  cp "$W/README.md" "$R/workspace_README.md"
  git -C "$W" log --format='%h %s' > "$R/git_log.txt"
  run iterate_verify "$KGO" iterate verify --workspace "$W"
  run memory_summary "$KGO" memory summary --workspace "$W"
  pack
fi

if want verdicts; then
  phase "verdicts on planted kernels (each in its own workspace)"
  P="$R/planted"
  mkdir -p "$P"
  python3 - "$REPO/templates/ops/softmax/kernel.py" "$P" <<'PY'
import pathlib, sys
good = pathlib.Path(sys.argv[1]).read_text()
out = pathlib.Path(sys.argv[2])
body = "    rows, cols = x.shape\n"
(out / "wrong.py").write_text(good.replace("y = e / tl.sum(e, axis=0)", "y = e / (tl.sum(e, axis=0) + 1.0)"))
(out / "segfault.py").write_text(good.replace(body, body + "    import ctypes\n    ctypes.string_at(0)\n"))
(out / "sleeper.py").write_text(good.replace(body, body + "    import time\n    time.sleep(600)\n"))
PY
  for k in wrong segfault sleeper; do
    "$KGO" init "$k" "$P/$k.py" --platform H200 --reference templates/ops/softmax/ref.py --shape 1024x1024 \
      --dir "$WS" >/dev/null
  done
  run check_wrong "$KGO" check --workspace "$WS/kernel_opt_wrong" --json
  run check_segfault "$KGO" check --workspace "$WS/kernel_opt_segfault" --json
  run check_sleeper "$KGO" check --workspace "$WS/kernel_opt_sleeper" --case-timeout 5 --timeout 30 --json
  run baseline_wrong "$KGO" baseline --workspace "$WS/kernel_opt_wrong" --json
  git -C "$WS/kernel_opt_wrong" log --format='%h %s' > "$R/git_log_wrong.txt"
  pack
fi

if want ops; then
  phase "kgo ops $OPS"
  run ops "$KGO" ops "$OPS" --dir "$R/ops" --json
  pack
fi

phase "done"
pack
ls -la "$OUT"
