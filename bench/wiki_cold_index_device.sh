#!/usr/bin/env bash
# The cold wiki index (goal: 10,000 files within 1 s on 2 cores) on an idle machine, where wall
# time means something: bench/wiki_cold_index.py pinned to CPUs 0-1, for the new kgo and, when given,
# the old one, one after the other on the same generated wiki size. Needs no GPU.
# Usage: bench/wiki_cold_index_device.sh [OUTDIR]   (default $OUT/wiki-cold-index, else /tmp/wiki-cold-index)
#   KGO_NEW  the new kgo (default .device-carry/kgo, made by scripts/device-pack.sh; else build/cli/kgo)
#   KGO_OLD  an older kgo to compare with (e.g. the old tree's .device-carry/kgo); unset: skipped, said so
#   WIKI_FILES  the wiki size (default 10000; a small one checks the script)
# Writes OUTDIR/summary.md: the command, the date, the machine and both benches' output.
set -u
cd "$(dirname "$0")/.."
OUTDIR=${1:-${OUT:+$OUT/wiki-cold-index}}
OUTDIR=${OUTDIR:-/tmp/wiki-cold-index}
mkdir -p "$OUTDIR"
KGO_NEW=${KGO_NEW:-.device-carry/kgo}
[ -x "$KGO_NEW" ] || KGO_NEW=build/cli/kgo
{
  echo "# kgo wiki check, cold, 10,000-file generated wiki, pinned to 2 CPUs"
  echo
  echo "command: bench/wiki_cold_index_device.sh (KGO_NEW=$KGO_NEW; KGO_OLD=${KGO_OLD:-unset})"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "tree: $(git log -1 --format='%h %s' 2>/dev/null || echo 'no git history here')"
  for which in NEW OLD; do
    bin=$([ "$which" = NEW ] && echo "$KGO_NEW" || echo "${KGO_OLD:-}")
    echo
    echo "## $which kgo: ${bin:-not given}"
    echo
    if [ -z "$bin" ] || [ ! -x "$bin" ]; then echo "skipped: no $which kgo"; continue; fi
    echo '```'
    timeout 280 python3 bench/wiki_cold_index.py "$(realpath "$bin")" "${WIKI_FILES:-10000}" 2>&1
    echo "exit $?"
    echo '```'
  done
} | tee "$OUTDIR/summary.md"
