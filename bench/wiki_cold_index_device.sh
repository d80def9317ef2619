#!/usr/bin/env bash
# The cold wiki index (goal: 10,000 files within 1 s on 2 cores) on an idle machine, where wall
# time means something: bench/wiki_cold_index.py pinned to CPUs 0-1, for the new kgo and, when given,
# the old one, their cold runs interleaved on one generated wiki. Needs no GPU.
# Usage: bench/wiki_cold_index_device.sh [OUTDIR]   (default $OUT/wiki-cold-index, else /tmp/wiki-cold-index)
#   KGO_NEW  the new kgo (default .device-carry/kgo, made by scripts/device-pack.sh; else build/cli/kgo)
#   KGO_OLD  an older kgo to compare with (e.g. the old tree's .device-carry/kgo); unset: skipped, said so
#   WIKI_FILES  the wiki size (default 10000; a small one checks the script)
#   COLD_RUNS   cold runs per kgo (default 5; the median is reported)
# Writes OUTDIR/summary.md: the command, the date, the machine and the bench's output.
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
  old=""
  if [ -n "${KGO_OLD:-}" ] && [ -x "$KGO_OLD" ]; then old=$(realpath "$KGO_OLD"); else echo "old kgo: not given (KGO_OLD), skipped"; fi
  echo
  echo '```'
  # New and old cold runs interleaved on one generated wiki, so both see the same load.
  COLD_RUNS=${COLD_RUNS:-5} timeout 500 python3 bench/wiki_cold_index.py "$(realpath "$KGO_NEW")" "${WIKI_FILES:-10000}" $old 2>&1
  echo "exit $?"
  echo '```'
} | tee "$OUTDIR/summary.md"
