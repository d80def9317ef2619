#!/usr/bin/env bash
# The main job on the embedded defaults: a workspace for the bundled softmax kernel.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
kgo="$here/build/cli/kgo"
ws_parent="${KGO_WORKSPACES:-/tmp}"
"$kgo" init softmax "$here/examples/softmax/kernel.py" --platform H100 \
  --reference "$here/examples/softmax/ref.py" --shape 4096x4096 --dir "$ws_parent" --force
cd "$ws_parent/kernel_opt_softmax"
"$kgo" status
echo "----- $PWD/README.md -----"
cat README.md
