#!/usr/bin/env bash
# Where a cold `kgo check` spends its start-up on this machine: torch import alone, two at once (the judge
# and the kernel's process import together), each stage of the kernel process's start, `kgo harness start`,
# and -X importtime's slowest modules. Writes $OUT/cold-start/probe.txt (command, date, output).
# Usage (repo root): OUT=$OUT bench/cold_start_probe.sh
set -u
cd "$(dirname "$0")/.."
D=${OUT:-/tmp}/cold-start; mkdir -p "$D"
KGO=${KGO:-.device-carry/kgo}; [ -x "$KGO" ] || KGO=build/cli/kgo
exec > >(tee "$D/probe.txt") 2>&1
echo "command: bench/cold_start_probe.sh; date: $(date -u +%FT%TZ); kgo: $KGO"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
t() { local s=$(date +%s%N); "$@" >/dev/null 2>&1; echo "$(( ($(date +%s%N) - s) / 1000000 )) ms: $*"; }
for i in 1 2; do t python3 -c 'import torch'; done
s=$(date +%s%N); python3 -c 'import torch' & p1=$!; python3 -c 'import torch' & p2=$!; wait $p1 $p2
echo "$(( ($(date +%s%N) - s) / 1000000 )) ms: two 'import torch' at once"
PYTHONPATH=tools python3 - <<'PY'
import time
t0 = time.perf_counter(); import torch
t1 = time.perf_counter(); from kgo_harness import bench_kernel, contracts, guard, launches, wire
t2 = time.perf_counter(); launches.install()
t3 = time.perf_counter(); torch._C._set_deterministic_algorithms(True, warn_only=True)  # as kernel_worker does
t3b = time.perf_counter(); s = guard.Snapshot()
t4 = time.perf_counter(); ok = torch.cuda.is_available() and torch.zeros(1, device="cuda").sum().item() == 0
t5 = time.perf_counter(); import triton
t6 = time.perf_counter()
print(f"kernel process stages: torch {t1-t0:.2f} s, kgo modules {t2-t1:.2f} s, launches.install {t3-t2:.2f} s, "
      f"deterministic mode {t3b-t3:.2f} s, snapshot {t4-t3b:.2f} s, first CUDA tensor {t5-t4:.2f} s ({ok}), triton {t6-t5:.2f} s")
PY
export KGO_DATA_DIR=$PWD XDG_RUNTIME_DIR=$(mktemp -d)
for i in 1 2; do t "$KGO" harness start; t "$KGO" harness stop; done
PYTHONPATH=tools python3 -X importtime -c 'import torch; from kgo_harness import bench_kernel, contracts, guard, launches, wire; launches.install()' 2> "$D/importtime.txt"
echo "slowest imports (cumulative us):"; sort -t'|' -k2 -n -r "$D/importtime.txt" | head -12
