#!/usr/bin/env bash
# Builds kgo and runs every test (GoogleTest unit tests and pytest CLI/harness tests) via CTest.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
"$here/scripts/build.sh"
cd "$here/build"
# Two more jobs than cores: the test files wait on kgo's processes (harness starts, daemons, Slurm, fsyncs) for
# part of their time (evidence/suite-time-2026-11-26.md, third section: on 2 cores 133 s at -j 3, 115-121 s at -j 4,
# 113-119 s at -j 5, 129 s at -j 6).
ctest --output-on-failure -j "$(( $(nproc) + 2 ))" "$@"
