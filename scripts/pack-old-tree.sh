#!/usr/bin/env bash
# Packs an old revision of kgo for side-by-side benchmarks on the device (bench/judge_h200.sh's KGO_OLD_TREE):
# its source tree at REV (git archive) with its own kgo built and packed by scripts/device-pack.sh into
# DEST/.device-carry/, without the build folder, so DEST can be carried (run(carry=[".device-carry", DEST])).
# Usage: scripts/pack-old-tree.sh REV DEST   (e.g. scripts/pack-old-tree.sh f8d3c3e .device-carry-old)
# With KGO_PACK_BUILD=DIR (a build folder of REV made elsewhere) device-pack.sh packs that kgo instead of
# building REV again.
set -euo pipefail
rev=${1:?usage: scripts/pack-old-tree.sh REV DEST}
dest=${2:?usage: scripts/pack-old-tree.sh REV DEST}
here="$(cd "$(dirname "$0")/.." && pwd)"
work=$(mktemp -d /tmp/kgo-old-XXXXXX)
trap 'rm -rf "$work"' EXIT
git -C "$here" archive "$rev" | tar -x -C "$work"
rm -rf "$work/evidence"   # evidence archives: not needed to run, and they count against the carry limit
"$here/scripts/device-pack.sh" "$work"
rm -rf "$work/build-device"
rm -rf "$dest"
mkdir -p "$dest"
cp -a "$work/." "$dest/"
echo "old tree $rev packed at $dest ($(du -sh "$dest" | cut -f1)); KGO_OLD_TREE=$dest"
