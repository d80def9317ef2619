#!/usr/bin/env bash
# Builds kgo here and packs it, with the shared libraries it needs beyond glibc, into
# .device-carry/ so a GPU machine without kgo's -dev packages can run it
# (device tool: run(carry=[".device-carry"]), then `.device-carry/kgo ...` from the repo root).
# Usage: scripts/device-pack.sh [TREE]   (TREE: another kgo source tree to pack, e.g. an old revision's
# worktree for bench/judge_h200.sh's KGO_OLD_TREE; default this checkout)
# KGO_PACK_BUILD=DIR packs DIR/cli/kgo as built (stripped) instead of building a Release tree.
set -euo pipefail
here="$(cd "${1:-$(dirname "$0")/..}" && pwd)"
build="${KGO_PACK_BUILD:-$here/build-device}"
if [ -z "${KGO_PACK_BUILD:-}" ]; then
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DKGO_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build" -j "$(nproc)" --target kgo >/dev/null
fi
out="$here/.device-carry"
rm -rf "$out"
mkdir -p "$out/lib"
cp "$build/cli/kgo" "$out/kgo.bin"
strip --strip-debug "$out/kgo.bin"
ldd "$out/kgo.bin" | awk '/=> \// {print $3}' | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libgcc_s.so*|libstdc++.so*) ;;
    *) cp -L "$lib" "$out/lib/" ;;
  esac
done
# libstdc++ of this machine may be newer than the GPU machine's: carry it too.
cp -L "$(g++ -print-file-name=libstdc++.so.6)" "$out/lib/"
cat > "$out/kgo" <<'WRAP'
#!/usr/bin/env bash
d="$(cd "$(dirname "$0")" && pwd)"
export LD_LIBRARY_PATH="$d/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export KGO_DATA_DIR="${KGO_DATA_DIR:-$(dirname "$d")}"
exec "$d/kgo.bin" "$@"
WRAP
chmod +x "$out/kgo"
du -sh "$out"
