#!/usr/bin/env bash
# Profiling evidence on a GPU machine (the device tool's H200): kgo ceiling --record vs PyTorch in the same run,
# kgo profile + verdicts and kgo asm for softmax, layer_norm, a Triton bf16 matmul and cuBLAS, the
# --summary-first and --kernel-regex launch selection, and kgo profile vs the bare ncu run.
# Usage (repo root): KGO=.device-carry/kgo OUT=/some/dir [PHASES="ceiling roofline profiles summary overhead cuda sass"]
# bench/profiling_h200.sh ; everything lands in $OUT/profiling.tar.gz (re-packed after every phase, so a cut-short
# run still returns what it did).
set -uo pipefail
cd "$(dirname "$0")/.."
KGO=$(realpath "${KGO:-.device-carry/kgo}")
PHASES=${PHASES:-ceiling roofline profiles summary overhead cuda sass}
want() { [[ " $PHASES " == *" $1 "* ]]; }
W=/tmp/kgo_profiling
WS=/tmp/kgo_profiling_ws
rm -rf "$W" "$WS"
mkdir -p "$W" "$WS"
pack() { tar czf "$OUT/profiling.tar.gz" -C /tmp kgo_profiling; }
phase() { echo; echo "=== $(date -u +%H:%M:%S) $*"; }
exec > >(tee "$W/log.txt") 2>&1

phase environment
date -u
nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.mem,power.draw --format=csv
ncu --version | tail -1; nvcc --version | tail -2; uname -r
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
"$KGO" --version

if want ceiling; then
  phase "kgo ceiling --record (between two PyTorch passes)"
  mkdir -p gpu-wiki-index/wiki/measured
  python3 bench/ceiling_vs_torch.py "$KGO" --record gpu-wiki-index/wiki > "$W/ceiling_vs_torch.json"
  cp gpu-wiki-index/wiki/measured/*.md "$W/" 2>/dev/null
  pack
fi

if want roofline; then
  phase "kgo spec auto + kgo roofline on the measured maxima (embedded wiki with the new measured document)"
  "$KGO" init roof examples/softmax/kernel.py --platform H200 --shape 8192x8192 --shape 256x256 --dir "$WS" >/dev/null
  (cd "$WS/kernel_opt_roof" && "$KGO" spec auto && "$KGO" roofline --op softmax) 2>&1 | tee "$W/spec_roofline.txt"
  cp "$WS/kernel_opt_roof/specs.json" "$WS/kernel_opt_roof/roofline.json" "$W/" 2>/dev/null
  pack
fi

run_ws() {  # name kernel op shape dtype [profile flags...]
  local name=$1 kernel=$2 op=$3 shape=$4 dtype=$5; shift 5
  phase "workspace $name ($op $shape $dtype)"
  "$KGO" init "$name" "$kernel" --platform H200 --shape "$shape" --dtype "$dtype" --dir "$WS" >/dev/null || return
  local ws="$WS/kernel_opt_$name"
  "$KGO" memory create --workspace "$ws" >/dev/null
  local t0=$SECONDS
  "$KGO" profile --op "$op" --workspace "$ws" "$@" --json > "$W/profile_$name.json"
  echo "kgo profile: exit $?, $((SECONDS - t0)) s wall"
  if [ "${ASM:-1}" = 1 ]; then "$KGO" asm --op "$op" --workspace "$ws" --json > "$W/asm_$name.json"; echo "kgo asm: exit $?"; fi
  "$KGO" memory read v0 --workspace "$ws" > "$W/record_$name.json"
  cp -r "$ws/profiles" "$W/profiles_$name"
  python3 - "$W/profile_$name.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
v = j["verdict"]
print(f"{j['chosen']['kernel'] if j['chosen'] else '-'}: {v['bottleneck']} [{v['rule']}]\n  {v['evidence_chain']}")
PY
  pack
}
if want profiles; then
run_ws softmax examples/softmax/kernel.py softmax 8192x8192 fp32
run_ws layernorm templates/ops/layer_norm/v1_baseline.py layer_norm 8192x8192 fp32 --kernel-regex _layer_norm_row --launch-skip 3
run_ws matmul bench/profile_kernels/matmul_bf16.py matmul 8192x8192x8192 bf16
ASM=0 run_ws cublas bench/profile_kernels/matmul_cublas.py matmul 8192x8192x8192 bf16
fi

if want summary; then
phase "summary-first launch selection (softmax)"
"$KGO" profile --op softmax --workspace "$WS/kernel_opt_softmax" --summary-first --json > "$W/profile_softmax_summary_first.json"
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j['selection'], '->', j['verdict']['bottleneck'])" "$W/profile_softmax_summary_first.json"
pack
fi

if want overhead; then
phase "kgo profile vs bare ncu (softmax)"
[ -d "$WS/kernel_opt_softmax" ] || "$KGO" init softmax examples/softmax/kernel.py --platform H200 --shape 8192x8192 --dir "$WS" >/dev/null
python3 bench/profile_overhead.py "$KGO" "$WS/kernel_opt_softmax" softmax 3 > "$W/profile_overhead.json"
pack
fi

if want cuda; then
phase "kernel.cu workspace: kgo asm (nvcc -cubin, cuobjdump) and kgo profile (harness cuda contract)"
"$KGO" init vadd bench/profile_kernels/vector_add.cu --framework cuda --platform H200 --shape 67108864 --dir "$WS" >/dev/null
"$KGO" memory create --workspace "$WS/kernel_opt_vadd" >/dev/null
"$KGO" asm --workspace "$WS/kernel_opt_vadd" --json > "$W/asm_vadd.json"; echo "kgo asm: exit $?"
"$KGO" asm --workspace "$WS/kernel_opt_vadd" | tail -6
"$KGO" profile --op add --workspace "$WS/kernel_opt_vadd" --json > "$W/profile_vadd.json"; echo "kgo profile: exit $?"
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j['selection'], j['chosen'], j['verdict']['bottleneck'], j['verdict']['rule'])" "$W/profile_vadd.json"
cp -r "$WS/kernel_opt_vadd/profiles" "$W/profiles_vadd"
pack
fi

if want sass; then
phase "SASS of kgo_ceiling and ncu's metric list (test data)"
bin=$(ls ~/.cache/kgo/ceiling/*/kgo_ceiling | head -1)
cuobjdump -sass "$bin" > "$W/kgo_ceiling.sass"
cuobjdump --dump-resource-usage "$bin" > "$W/kgo_ceiling_resources.txt"
ncu --query-metrics --chip gh100 > "$W/ncu_query_metrics_gh100.txt" 2>&1
pack
fi
phase done
