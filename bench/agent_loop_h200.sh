#!/usr/bin/env bash
# The agent loop of issue 32 on a GPU: init -> spec auto -> roofline -> baseline -> profile -> status ->
# wiki index -> plan -> plan check -> check -> bench -> profile v1 -> propose (accepted) -> a wrong kernel
# proposed (rejected) -> memory list -> mask -> report -> next -> audit, through `kgo mcp` tools (each answer
# validated against its outputSchema when jsonschema is installed) and through `kgo --json`, with the output
# tokens of each (bench/agent_loop_tokens.py --device cuda). profile needs ncu: without it the profile steps
# are skipped and the report says so. Without a GPU, or with DEVICE=cpu (the dry run: the same loop on the
# CPU path, Triton's interpreter, no timing or profile), the loop runs on the CPU, said so.
# Usage (repo root): scripts/device-pack.sh here, then on the GPU machine (carry .device-carry):
#   OUT=DIR bench/agent_loop_h200.sh    LOOPS=mcp or LOOPS=cli runs one loop (to keep a call short)
#   KGO (default .device-carry/kgo, else build/cli/kgo); KGO_BEFORE: an older kgo for the 'before' loop;
#   PLATFORM (default H200): the workspace's --platform; DEVICE=cpu: the dry run on any machine.
# Everything it writes goes under $OUT/agent-loop-<device>-<loops>/: README.md (command, date, machine, the
# token figures), every answer of every step under mcp/ and cli/, run.log; the workspaces, temporary files
# and every cache (kgo's, Triton's, torch's, the experience store) live in its scratch/ while it runs and are
# removed at the end. Exits 1 when a step went wrong, 2 when kgo cannot run, 3 without OUT.
set -u
cd "$(dirname "$0")/.."
if [ -z "${OUT:-}" ]; then
  echo "agent_loop_h200.sh: set OUT to the folder that receives everything it writes (OUT=/tmp/x $0)" >&2
  exit 3
fi
LOOPS=${LOOPS:-mcp,cli}
PLATFORM=${PLATFORM:-H200}
KGO=${KGO:-.device-carry/kgo}
[ -x "$KGO" ] || KGO=build/cli/kgo
if ! "$KGO" --version >/dev/null 2>&1; then
  echo "agent_loop_h200.sh: $KGO does not run here ($("$KGO" --version 2>&1 | head -1)); build it, or run" \
       "scripts/device-pack.sh and carry .device-carry" >&2
  exit 2
fi
if [ -z "${DEVICE:-}" ]; then
  DEVICE=cuda
  python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null || DEVICE=cpu
fi
OUTDIR=$OUT/agent-loop-$DEVICE-${LOOPS//,/-}
rm -rf "$OUTDIR"
scratch=$OUTDIR/scratch
mkdir -p "$scratch"/{tmp,cache,data,runtime,experience,triton,inductor,nv,pycache}
chmod 700 "$scratch/runtime"
# Nothing outside $OUT: temporary files, caches and the experience store all go to scratch/.
export TMPDIR=$scratch/tmp XDG_CACHE_HOME=$scratch/cache XDG_DATA_HOME=$scratch/data \
       XDG_RUNTIME_DIR=$scratch/runtime KGO_CACHE_DIR=$scratch/cache/kgo KGO_EXPERIENCE_DIR=$scratch/experience \
       TRITON_CACHE_DIR=$scratch/triton TORCHINDUCTOR_CACHE_DIR=$scratch/inductor CUDA_CACHE_PATH=$scratch/nv \
       PYTHONPYCACHEPREFIX=$scratch/pycache
args=(--kgo "$(realpath "$KGO")" --device "$DEVICE" --platform "$PLATFORM" --loops "$LOOPS" --out "$OUTDIR")
[ -n "${KGO_BEFORE:-}" ] && args+=(--before-kgo "$(realpath "$KGO_BEFORE")")
{
  echo "# Agent loop through kgo mcp and kgo --json ($DEVICE)"
  echo
  echo "command: OUT=... bench/agent_loop_h200.sh (LOOPS=$LOOPS; PLATFORM=$PLATFORM; KGO=$KGO; DEVICE=$DEVICE;" \
       "KGO_BEFORE=${KGO_BEFORE:-unset})"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "tree: $(git log -1 --format='%h %s' 2>/dev/null | cut -c1-100 || echo 'no git history here')"
  [ "$DEVICE" = cpu ] && echo "the loop ran on the CPU path (Triton interpreter; DEVICE=cpu or no GPU visible to" \
                               "torch): no GPU timing, no profile"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
  echo "ncu: $(command -v ncu || echo 'not found: the profile steps are skipped')"
  python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" 2>&1
  python3 -c "import jsonschema; print('outputSchema validation: jsonschema', jsonschema.__version__)" 2>/dev/null ||
    echo "outputSchema validation: skipped (no jsonschema)"
  echo "kgo: $("$KGO" --version 2>&1)"
  echo
} > "$OUTDIR/head.md"
t0=$SECONDS
python3 bench/agent_loop_tokens.py "${args[@]}" > "$OUTDIR/run.log" 2>&1
rc=$?
# agent_loop_tokens.py wrote the report to $OUTDIR/README.md: put the run's header above it
{ cat "$OUTDIR/head.md"; echo "exit $rc after $((SECONDS - t0)) s"; echo; cat "$OUTDIR/README.md" 2>/dev/null ||
  tail -40 "$OUTDIR/run.log"; } > "$OUTDIR/summary.md"
mv "$OUTDIR/summary.md" "$OUTDIR/README.md"
rm -f "$OUTDIR/head.md"
rm -rf "$scratch"
cat "$OUTDIR/README.md"
exit $rc
