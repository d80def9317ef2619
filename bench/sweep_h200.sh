#!/usr/bin/env bash
# kgo sweep, local backend, on a GPU machine: the four examples (v4 kernels of softmax, layer_norm, gelu, add
# against their references) x 3 sizes x check+bench = 24 jobs, one worker per visible GPU (CUDA_VISIBLE_DEVICES
# pinned per job), then collect. Evidence (spec, sweep.md/csv/svg/table, every result JSON, log) in $OUT.
# Usage (repo root):  scripts/device-pack.sh   (here)  ;  OUT=$OUT bench/sweep_h200.sh   (there, carry .device-carry)
# Set GPUS=0 to pin to one GPU. About 4-6 minutes on one H200.
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
KGO=$(realpath "${KGO:-.device-carry/kgo}")
OUT=${OUT:-/tmp/kgo_sweep_out}
W=${SWEEP_WORK:-/tmp/kgo_sweep_h200}
rm -rf "$W"
mkdir -p "$W" "$OUT"
export KGO_DATA_DIR=${KGO_DATA_DIR:-$REPO}
exec > >(tee "$OUT/log.txt") 2>&1
date -u
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.mem --format=csv
"$KGO" --version
# SWEEP_QUICK=1: one trial per check and no eager baseline in bench (both runs of sweep_multi_gpu.sh fit one
# device command); the default checks 3 trials and times eager.
STEP_ARGS='{"bench": ["--no-compile"]}'
[ -n "${SWEEP_QUICK:-}" ] && STEP_ARGS='{"check": ["--trials", "1"], "bench": ["--no-compile", "--no-eager"]}'
# SWEEP_DETAIL=1 (kgo after 4904337): each job's output.json holds the harness's whole result (which judge served it,
# its timing: the judge's start, the kernel process's wait), with the same steps as above.
if [ -n "${SWEEP_DETAIL:-}" ]; then
  STEP_ARGS='{"check": ["--detail"], "bench": ["--no-compile", "--detail"]}'
  [ -n "${SWEEP_QUICK:-}" ] && STEP_ARGS='{"check": ["--trials", "1", "--detail"], "bench": ["--no-compile", "--no-eager", "--detail"]}'
fi
cat > "$W/spec.json" <<JSON
{
  "name": "examples-h200",
  "kernels": [
    {"name": "softmax", "kernel": "$REPO/templates/ops/softmax/v4_optimized.py", "reference": "$REPO/templates/ops/softmax/ref.py"},
    {"name": "layer_norm", "kernel": "$REPO/templates/ops/layer_norm/v4_optimized.py", "reference": "$REPO/templates/ops/layer_norm/ref.py"},
    {"name": "gelu", "kernel": "$REPO/templates/ops/gelu/v4_optimized.py", "reference": "$REPO/templates/ops/gelu/ref.py"},
    {"name": "add", "kernel": "$REPO/templates/ops/add/v4_optimized.py", "reference": "$REPO/templates/ops/add/ref.py"}
  ],
  "platforms": ["H200"],
  "shapes": ["256x256", "1024x1024", "4096x4096"],
  "steps": ["check", "bench"],
  "device": "cuda",
  "step_args": $STEP_ARGS,
  "timeout_s": 300,
  "retries": 1
}
JSON
cp "$W/spec.json" "$OUT/spec.json"
GPU_ARG=()
[ -n "${GPUS:-}" ] && GPU_ARG=(--gpus "$GPUS")
t0=$SECONDS
"$KGO" sweep run "$W/spec.json" --dir "$W/sweep" "${GPU_ARG[@]}"
echo "sweep run: exit $?, $((SECONDS - t0)) s"
"$KGO" sweep status "$W/sweep"
"$KGO" sweep collect "$W/sweep" > /dev/null
echo "collect: exit $?"
cp "$W/sweep/sweep.md" "$W/sweep/sweep.csv" "$W/sweep/sweep.svg" "$W/sweep/sweep-table.json" "$W/sweep/sweep.json" "$OUT/"
mkdir -p "$OUT/results" && cp "$W/sweep/results/"*.json "$OUT/results/"
python3 - "$W/sweep" <<'PY' | tee "$OUT/summary.txt"
import json, pathlib, sys
d = pathlib.Path(sys.argv[1])
rs = [json.loads(f.read_text()) for f in sorted((d / "results").glob("*.json"))]
spans = sorted((r["started_unix"], r["finished_unix"], r["provenance"]["cuda_visible_devices"]) for r in rs)
t0, t1 = spans[0][0], max(s[1] for s in spans)
busy = sum(s[1] - s[0] for s in spans)
print(f"{len(rs)} results; wall {t1 - t0:.1f} s; sum of job times {busy:.1f} s")
for g in sorted({s[2] for s in spans}):
    mine = [s for s in spans if s[2] == g]
    overlap = any(a[1] > b[0] for a, b in zip(mine, mine[1:]))
    print(f"CUDA_VISIBLE_DEVICES={g}: {len(mine)} jobs, overlapping on this GPU: {overlap}")
print("GPU UUIDs:", sorted({(r["provenance"]["gpu"] or {}).get("uuid", "none") for r in rs}))
seen = [(r["provenance"].get("device_uuid"), (r["provenance"]["gpu"] or {}).get("uuid")) for r in rs]
print(f"harness ran on the pinned GPU: {sum(a == b and a is not None for a, b in seen)}/{len(seen)} jobs")
print("statuses:", sorted({r["status"] for r in rs}))
PY
cat "$OUT/sweep.md"
