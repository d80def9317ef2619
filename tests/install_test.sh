#!/usr/bin/env bash
# `cmake --install` into a temp prefix; the installed kgo must find its templates, schemas and
# embedded wiki without the source tree (KGO_DATA_DIR unset, cwd elsewhere).
set -euo pipefail
build_dir="$1"
src_dir="$2"
prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build_dir" --prefix "$prefix" >/dev/null
unset KGO_DATA_DIR KGO_GPU_WIKI
test -f "$prefix/share/kgo/templates/README.md"
test -f "$prefix/share/kgo/schemas/workspace.schema.json"
test -d "$prefix/share/kgo/gpu-wiki-index/wiki"
cp "$src_dir/examples/softmax/kernel.py" "$prefix/k.py"
cd "$prefix"
# Hide the source tree the binary was built from, so only the installed data can be used.
"$prefix/bin/kgo" init inst "$prefix/k.py" --platform H100 --dir "$prefix" >/dev/null
grep -q "## Hardware Spec" "$prefix/kernel_opt_inst/README.md"
grep -q "\"embedded\": true" "$prefix/kernel_opt_inst/kgo.json"
grep -q "$prefix/share/kgo/gpu-wiki-index/wiki" "$prefix/kernel_opt_inst/kgo.json"
echo "install test ok"
