#!/usr/bin/env bash
# H200 evidence for the kernel's cell (tools/kgo_harness/PROTOCOL.md, "The kernel's cell"), one device command:
#   overhead  bench/cell_overhead.py: an older harness (no cell) beside this one, cold check and warm cycle;
#   cheats    bench/judge_h200.py cheats: the timing and memory cheats, caught through the cell;
#   tests     the harness's cell, CUDA-contract, anti-cheat and bench tests on the GPU.
# Usage: bench/cell_h200.sh OUT OLD_TREE [overhead] [cheats] [tests]   (OLD_TREE: `git archive REV tools schemas`
# extracted into a folder, carried to the device)
set -u
OUT=$1; OLD=$2; shift 2
PHASES=${*:-overhead cheats tests}
mkdir -p "$OUT"
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1
{
  date -u; echo "command: bench/cell_h200.sh \$OUT \$OLD $PHASES"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
  uname -r; id -u
  for phase in $PHASES; do
    echo; echo "=== $phase ($(date -u +%H:%M:%S))"
    case $phase in
      overhead) timeout 300 python3 bench/cell_overhead.py "$OLD" --rounds 3 --cycles 5 2>&1 | grep -v '^USDT\|^ERROR:.*gpuGetDeviceCount' ;;
      cheats) timeout 200 python3 bench/judge_h200.py cheats --out "$OUT/judge" 2>&1 | grep -v '^USDT' ;;
      tests) (cd tools/tests && timeout 280 python3 -m pytest -q -p no:cacheprovider -rf test_cell.py test_roles.py \
                test_cuda_contract.py test_anticheat.py test_bench.py 2>&1 | tail -15) ;;
    esac
  done
} 2>&1 | tee "$OUT/cell_h200.txt"
