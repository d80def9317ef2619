#!/usr/bin/env bash
# Builds kgo and runs every test (GoogleTest unit tests and pytest CLI/harness tests) via CTest.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
"$here/scripts/build.sh"
cd "$here/build"
# One more job than cores: the test files wait on kgo's processes (harness starts, daemons, Slurm) for about a
# quarter of their time (evidence/suite-time-2026-11-26.md: 199 s at -j 2, 176 s at -j 3, 179 s at -j 4).
ctest --output-on-failure -j "$(( $(nproc) + 1 ))" "$@"
