#!/usr/bin/env bash
# Builds kgo and runs every test (GoogleTest unit tests and pytest CLI/harness tests) via CTest.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
"$here/scripts/build.sh"
cd "$here/build"
ctest --output-on-failure -j "$(nproc)" "$@"
