#!/usr/bin/env bash
# Runs several GPU evidence scripts in one device call, each under its own time limit, and packs each
# one's output as $OUT/<phase>.tar.gz (the device tool returns at most 8 files, two folders deep).
# Usage (repo root, on the GPU machine, with .device-carry/ from scripts/device-pack.sh):
#   OUT=$OUT bench/h200_phases.sh judge:300 sweep:240
# Phases: judge (honest, cheats and cycle), honest, cheats, cycle (one judge phase each), sweep (one GPU),
# sweep2 (every GPU against one: bench/sweep_multi_gpu.sh), learning, formats (kgo's examples/formats, check +
# bench), wiki (cold index, old kgo from KGO_OLD when set), sbs:SEL (bench/formats_side_by_side.py on the jobs SEL
# picks, K/N a shard or @I from job I on, stopping 30 s before the limit and naming next_offset: e.g.
# sbs:1/3:550, sbs:@57:550; SBS_ARGS adds options, e.g. "--parts fmh66,sol-execbench,tritonbench" or "--stride 4",
# the same in every call of one series, since job numbers count within that selection; needs bench/.kernelbench,
# .fmh66, .sol-execbench, .tritonbench carried).
# Each line of $OUT/phases.txt: phase, exit status, seconds.
# Two lanes on a two-GPU machine: CUDA_VISIBLE_DEVICES=0 OUT=$OUT/a bench/h200_phases.sh ... &
#                                 CUDA_VISIBLE_DEVICES=1 OUT=$OUT/b bench/h200_phases.sh ... & wait
set -uo pipefail
cd "$(dirname "$0")/.."
export KGO=$(realpath .device-carry/kgo) KGO_BIN=$(realpath .device-carry/kgo) KGO_NEW=$(realpath .device-carry/kgo)
export KGO_DATA_DIR=$PWD PYTHONUNBUFFERED=1
OUT=${OUT:?set OUT}
mkdir -p "$OUT"
W=$(mktemp -d /tmp/h200_phases.XXXXXX)  # one per lane: several lanes may share a GPU
{ date -u; nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem --format=csv; "$KGO" --version; } > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"
for item in "$@"; do
  phase=${item%%:*}; limit=${item##*:}; sel=${item#*:}; sel=${sel%:*}; t0=$SECONDS
  [ "$phase" = sbs ] && phase=sbs${sel//[^0-9]/_}
  dir="$W/$phase"; mkdir -p "$dir"
  echo "=== $phase (limit ${limit}s) $(date -u +%H:%M:%S)"
  case $phase in
    judge)    timeout "$limit" bench/judge_h200.sh "$dir" ;;
    honest|cheats|cycle) timeout "$limit" bench/judge_h200.sh "$dir" "$phase" ;;
    sweep2)   OUT=$dir timeout "$limit" bench/sweep_multi_gpu.sh ;;
    wiki)     timeout "$limit" bench/wiki_cold_index_device.sh "$dir" ;;
    sweep)    GPUS=0 OUT=$dir timeout "$limit" bench/sweep_h200.sh ;;
    learning) OUT=$dir timeout "$limit" bench/learning_session_h200.sh ;;
    formats)  timeout "$limit" python3 bench/formats_side_by_side.py --parts examples --out "$dir" ;;
    sbs*)     case $sel in @*) pick=(--offset "${sel#@}") ;; *) pick=(--shard "$sel") ;; esac
              timeout "$limit" python3 bench/formats_side_by_side.py "${pick[@]}" ${SBS_ARGS:-} \
                --budget $((limit - 30)) --out "$dir" ;;
    *) echo "unknown phase $phase"; false ;;
  esac > "$dir/phase.log" 2>&1
  rc=$?
  echo "$phase exit $rc $((SECONDS - t0)) s" | tee -a "$OUT/phases.txt"
  tail -25 "$dir/phase.log"
  tar czf "$OUT/$phase.tar.gz" -C "$W" "$phase"
done
