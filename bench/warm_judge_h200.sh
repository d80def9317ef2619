#!/usr/bin/env bash
# Cold starts on a GPU, an older kgo beside this one in one run (issue "cold starts"; harness/warm_judge.hpp):
#   cold    `kgo check` of examples/softmax at 4096x4096 with no harness running (each round in a fresh
#           XDG_RUNTIME_DIR, so no harness or judges' template of an earlier round serves it; `kgo harness stop`
#           after it), kgo's default path, old and new alternating, ROUNDS rounds (default 5) after one uncounted
#           check; new also says where its time went (--detail: the judge's start, its first request)
#   second  `kgo check` in a second workspace while the harness serves a first (old: `kgo harness start`)
#   cycle   warm check+bench cycles through the harness, 5 each
#   sweep   bench/sweep_h200.sh's 24 jobs pinned to GPU 0, old then new, nvidia-smi sampled every 200 ms
#   probe   where a cold start goes (new only): `import torch` alone and two at once, torch with a CUDA tensor,
#           Triton, and -X importtime's slowest modules
# Usage (GPU machine, repo root; .device-carry from scripts/device-pack.sh, OLD from scripts/pack-old-tree.sh):
#   OUT=$OUT OLD=.device-carry-old bench/warm_judge_h200.sh [cold] [second] [cycle] [sweep] [probe]
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:?set OUT}; OLD=$(realpath "${OLD:?set OLD}")
PHASES=${*:-cold second cycle sweep probe}
mkdir -p "$OUT"
NEW_K=$PWD/.device-carry/kgo; OLD_K=$OLD/.device-carry/kgo
W=$(mktemp -d /tmp/kgo-wj-XXXXXX)
exec > >(tee "$OUT/warm_judge.txt") 2>&1
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
side() {  # side NAME: KGO, KGO_DATA_DIR and a private runtime folder for that side
  if [ "$1" = old ]; then K=$OLD_K; export KGO_DATA_DIR=$OLD; else K=$NEW_K; export KGO_DATA_DIR=$PWD; fi
  export XDG_RUNTIME_DIR=$W/rt-$1; mkdir -p -m 700 "$XDG_RUNTIME_DIR"
}
ws() {  # ws SIDE N: a softmax workspace at 4096x4096
  side "$1"; local d=$W/$1-ws$2
  if [ ! -d "$d" ]; then
    mkdir -p "$d"; "$K" init sm examples/softmax/kernel.py --platform H200 --dir "$d" --shape 4096x4096 >/dev/null
  fi
  echo "$d/kernel_opt_sm"
}
date -u; echo "command: bench/warm_judge_h200.sh $PHASES"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "new: $($NEW_K --version)"; echo "old: $($OLD_K --version)"
for phase in $PHASES; do
  echo; echo "=== $phase ($(date -u +%H:%M:%S))"
  case $phase in
    cold)
      d=$(ws new 1); side new; rt=$(mktemp -d -p "$W" rt-XXXX)
      (cd "$d" && XDG_RUNTIME_DIR=$rt "$K" check --json >/dev/null; XDG_RUNTIME_DIR=$rt "$K" harness stop >/dev/null 2>&1)
      for r in $(seq "${ROUNDS:-5}"); do
        for s in old new; do
          d=$(ws "$s" 1); side "$s"; export XDG_RUNTIME_DIR=$(mktemp -d -p "$W" rt-XXXX)
          detail=""; [ "$s" = new ] && detail=--detail
          t=$(date +%s%N); (cd "$d" && "$K" check --json $detail > "$W/cold-$s-$r.json"); rc=$?; took=$(ms "$t")
          split=$(python3 -c 'import json, sys
t = (json.load(open(sys.argv[1])).get("harness") or {}).get("timing") or {}
w = t.get("worker_start_s")
if w:
    print("(judge start %.2f s, first request %.2f s)" % (w, t.get("wall_s", 0) - w))' \
            "$W/cold-$s-$r.json" 2>/dev/null)
          echo "round $r $s: cold check $took ms (exit $rc) $split"
          "$K" harness stop >/dev/null 2>&1
        done
      done ;;
    second)
      for s in old new; do
        side "$s"; d1=$(ws "$s" 1); d2=$(ws "$s" 2)
        [ "$s" = old ] && "$K" harness start >/dev/null 2>&1
        t=$(date +%s%N); (cd "$d1" && "$K" check --json >/dev/null); echo "$s: first workspace $(ms "$t") ms"
        t=$(date +%s%N); (cd "$d2" && "$K" check --json >/dev/null); echo "$s: second workspace $(ms "$t") ms"
        d3=$(ws "$s" 3); t=$(date +%s%N); (cd "$d3" && "$K" check --json >/dev/null); echo "$s: third workspace $(ms "$t") ms"
        "$K" harness stop >/dev/null 2>&1
      done ;;
    cycle)
      for s in old new; do
        side "$s"; d=$(ws "$s" 1); "$K" harness start >/dev/null 2>&1
        (cd "$d" && "$K" check --json >/dev/null && "$K" bench --no-compile --json >/dev/null)   # compiles, caches
        for c in 1 2 3 4 5; do
          t=$(date +%s%N); (cd "$d" && "$K" check --json >/dev/null && "$K" bench --no-compile --json >/dev/null)
          echo "$s: warm check+bench $(ms "$t") ms"
        done
        "$K" harness stop >/dev/null 2>&1
      done ;;
    sweep)
      for s in old new; do
        side "$s"; unset XDG_RUNTIME_DIR
        nvidia-smi --query-gpu=timestamp,utilization.gpu --format=csv,noheader -lms 200 > "$OUT/smi-$s.csv" 2>/dev/null &
        smi=$!
        t=$(date +%s%N)
        detail=""; [ "$s" = new ] && detail=1
        KGO=$K GPUS=0 SWEEP_DETAIL=$detail SWEEP_WORK=$W/sweep-$s OUT=$W/sweep-out-$s bench/sweep_h200.sh \
          > "$W/sweep-$s.log" 2>&1
        echo "$s: sweep of 24 jobs on GPU 0: $(ms "$t") ms (exit $?)"
        kill $smi; wait $smi 2>/dev/null
        grep -E "results; wall|statuses|pinned" "$W/sweep-out-$s/summary.txt"
        python3 -c "import sys; v=[int(l.split(',')[1].split()[0]) for l in open(sys.argv[1]) if l.count(',')==1 and l.split(',')[1].strip().split()[0].isdigit()]; print(f'nvidia-smi: {len(v)} samples, GPU computing in {100*sum(x>0 for x in v)/max(len(v),1):.0f}%, mean utilization {sum(v)/max(len(v),1):.0f}%')" "$OUT/smi-$s.csv"
      done
      python3 - "$W/sweep-new/sweep" <<'PY'
import json, pathlib, sys
d = pathlib.Path(sys.argv[1])
for f in sorted((d / "results").glob("*.json"), key=lambda f: int(f.stem)):
    r = json.loads(f.read_text())
    out = d / "jobs" / f.stem / "output.json"
    h = (json.loads(out.read_text()).get("harness") or {}) if out.exists() else {}
    t = h.get("timing") or {}
    print(f"{r['job']['label']:<36} step {r.get('step_seconds') or 0:5.2f} s; harness {t.get('wall_s', 0):5.2f} s; "
          f"judge warm {(h.get('worker') or {}).get('warm')}; kernel process {t.get('kernel_start_s', 0)}; " +
          ", ".join(f"{k} {v:.2f}" for k, v in sorted(t.items()) if k.startswith(("kernel_", "device", "compile", "import")) and v))
PY
      ;;
    probe)
      for i in 1 2; do t=$(date +%s%N); python3 -c 'import torch'; echo "import torch: $(ms "$t") ms"; done
      t=$(date +%s%N); python3 -c 'import torch' & a=$!; python3 -c 'import torch' & b=$!; wait $a $b
      echo "two 'import torch' at once: $(ms "$t") ms"
      t=$(date +%s%N); python3 -c 'import torch; torch.zeros(1, device="cuda").sum().item()'
      echo "torch and a first CUDA tensor: $(ms "$t") ms"
      t=$(date +%s%N); python3 -c 'import triton.language'; echo "import triton.language: $(ms "$t") ms"
      python3 -X importtime -c 'import torch, triton.language' 2> "$W/importtime.txt"
      echo "slowest imports (self us | cumulative us):"; sort -t'|' -k2 -n -r "$W/importtime.txt" | head -8 ;;
  esac
done
rm -rf "$W"
