#!/usr/bin/env bash
# The test suite's wall time on N cores (default 2), side by side: the pytest files run one after another
# with a cold harness per call (KGO_TEST_COLD=1, as the suite ran before it had a warm harness and one
# CTest entry per file), then `ctest -j N -L pytest` (one entry per file, a warm harness per file).
# Usage: bench/suite_time.sh [build-dir] [cores]; writes $OUT/suite_time.md when $OUT is set.
# SUITE_SERIAL=0 skips the serial side (its ~6 min) and times only `ctest -j N` (every test, gtest too).
# SUITE_FORK=1 (with SUITE_SERIAL=0): `ctest -j N` twice, old beside new: every one-shot judge importing torch
# itself (KGO_JUDGE_FORK=0), then forked from the judges' template; each side with a fresh socket folder, so that
# no template of an earlier run serves it.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$here/build}"
cores="${2:-2}"
cpus="0-$((cores - 1))"
out="${OUT:-}"
export KGO_BIN="$build/cli/kgo" KGO_SOURCE_DIR="$here"
t0=$(date +%s.%N)
if [ "${SUITE_SERIAL:-1}" = 0 ] && [ "${SUITE_FORK:-0}" = 1 ]; then
  busy() { awk '/^cpu /{print ($2+$3+$4+$7+$8) / 100}' /proc/stat; }   # the machine's busy core-seconds
  for side in 0 auto; do
    rt=$(mktemp -d /tmp/kgo-suite-rt-XXXXXX)
    b0=$(busy)
    s=$(date +%s.%N)
    (cd "$build" && XDG_RUNTIME_DIR=$rt KGO_JUDGE_FORK=$side taskset -c "$cpus" ctest -j "$cores" \
       >/tmp/suite_fork_$side.log 2>&1) || true
    e=$(date +%s.%N)
    b1=$(busy)
    rm -rf "$rt"
    eval "wall_$side=\$(python3 -c \"print(f'{$e - $s:.1f}')\")"
    echo "KGO_JUDGE_FORK=$side: $(eval echo \$wall_$side) s, $(python3 -c "print(f'{$b1 - $b0:.0f}')") busy core-seconds;" \
         "$(grep -E 'tests passed|tests failed' /tmp/suite_fork_$side.log)"
  done
  python3 -c "print(f'forked/own import: {$wall_auto / $wall_0:.2f}x')"
  exit 0
fi
if [ "${SUITE_SERIAL:-1}" = 0 ]; then
  t1=$t0
  (cd "$build" && taskset -c "$cpus" ctest -j "$cores" >/tmp/suite_parallel.log 2>&1) || true
  t2=$(date +%s.%N)
  wall=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$t1" "$t2")
  echo "ctest -j$cores (all tests): $wall s"
  grep -E 'tests passed|tests failed' /tmp/suite_parallel.log || true
  echo "slowest:"; grep -E '^ *[0-9]+/[0-9]+ Test' /tmp/suite_parallel.log | sort -t' ' -k1 | awk '{print $(NF-1), $0}' | sort -rn | head -8 | cut -d' ' -f2-
  exit 0
fi
KGO_TEST_COLD=1 taskset -c "$cpus" python3 -m pytest -q -p no:cacheprovider "$here/tests/cli" "$here/tests/arch" >/tmp/suite_serial.log 2>&1 || true
TRITON_INTERPRET=1 taskset -c "$cpus" python3 -m pytest -q -p no:cacheprovider "$here/tools/tests" >>/tmp/suite_serial.log 2>&1 || true
t1=$(date +%s.%N)
(cd "$build" && taskset -c "$cpus" ctest -j "$cores" -L pytest >/tmp/suite_parallel.log 2>&1) || true
t2=$(date +%s.%N)
report=$(python3 - "$t0" "$t1" "$t2" "$cores" <<'PY'
import sys
t0, t1, t2, cores = map(float, sys.argv[1:])
serial, parallel = t1 - t0, t2 - t1
print(f"serial, cold harness: {serial:.1f} s\nctest -j{int(cores)}, warm harness: {parallel:.1f} s\n"
      f"ratio: {serial / parallel:.2f}x")
PY
)
summary="$(tail -1 /tmp/suite_serial.log) | $(grep -E 'tests passed|tests failed' /tmp/suite_parallel.log)"
echo "$report"; echo "$summary"
if [ -n "$out" ]; then
  { echo "# test suite wall time on $cores cores ($(date -u +%FT%TZ))"; echo; echo '```'; echo "$ bench/suite_time.sh $build $cores"
    echo "$report"; echo "$summary"; echo '```'; } > "$out/suite_time.md"
fi
