#!/usr/bin/env bash
# The main job on the embedded defaults: a workspace for the bundled softmax kernel, its cited
# hardware specs, roofline targets, and a correctness check (CPU interpreter mode without a GPU).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
kgo="$here/build/cli/kgo"
ws_parent="${KGO_WORKSPACES:-/tmp}"
"$kgo" init softmax "$here/examples/softmax/kernel.py" --platform H100 \
  --reference "$here/templates/ops/softmax/ref.py" --shape 4096x4096 --dir "$ws_parent" --force
cd "$ws_parent/kernel_opt_softmax"
"$kgo" spec auto
"$kgo" roofline --op softmax --shape 256x256 --shape 1024x1024 --shape 4096x4096 --dtype fp32
"$kgo" audit
if "$kgo" env >/dev/null 2>&1; then
  echo "GPU found: full path: kgo check && kgo bench && kgo baseline"
  "$kgo" check
else
  echo "No GPU: running kgo check on the CPU in Triton interpreter mode (small shape)."
  echo "On a GPU machine run: kgo env && kgo check && kgo bench && kgo baseline"
  "$kgo" check --device cpu --shape 64x1000 --trials 1
fi
"$kgo" status
echo "----- $PWD/README.md -----"
cat README.md
