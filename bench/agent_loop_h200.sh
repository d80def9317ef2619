#!/usr/bin/env bash
# The agent loop of issue 15 on a GPU: init -> spec auto -> roofline -> baseline -> profile -> status ->
# wiki index -> plan -> check -> bench -> propose (accepted) -> a wrong kernel proposed (rejected) ->
# memory list -> mask -> audit, through `kgo mcp` tools (each answer validated against its outputSchema
# when jsonschema is installed) and through `kgo --json`, with the output tokens of each
# (bench/agent_loop_tokens.py --device cuda). profile needs ncu: without it the step is skipped and the
# report says so. Without a GPU the same loop runs on the CPU path (--device cpu), said so.
# Usage (repo root): scripts/device-pack.sh here, then on the GPU machine (carry .device-carry):
#   bench/agent_loop_h200.sh            LOOPS=mcp or LOOPS=cli runs one loop (to keep a call short)
#   KGO (default .device-carry/kgo, else build/cli/kgo); KGO_BEFORE: an older kgo for the 'before' loop;
#   PLATFORM (default H200): the workspace's --platform
# Writes $OUT/agent-loop-h200-<loops>/ (else under /tmp): README.md with the command, date, machine and
# the report, and every answer of every step under mcp/ and cli/. Exits 1 when a step went wrong.
set -u
cd "$(dirname "$0")/.."
LOOPS=${LOOPS:-mcp,cli}
PLATFORM=${PLATFORM:-H200}
OUTDIR=${OUT:-/tmp}/agent-loop-h200-${LOOPS//,/-}
mkdir -p "$OUTDIR"
rm -rf "$OUTDIR/mcp" "$OUTDIR/cli" "$OUTDIR/before" "$OUTDIR/README.md"
KGO=${KGO:-.device-carry/kgo}
[ -x "$KGO" ] || KGO=build/cli/kgo
DEVICE=cuda
if ! python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
  DEVICE=cpu
fi
args=(--kgo "$(realpath "$KGO")" --device "$DEVICE" --platform "$PLATFORM" --loops "$LOOPS" --out "$OUTDIR")
[ -n "${KGO_BEFORE:-}" ] && args+=(--before-kgo "$(realpath "$KGO_BEFORE")")
{
  echo "# Agent loop through kgo mcp and kgo --json ($DEVICE)"
  echo
  echo "command: bench/agent_loop_h200.sh (LOOPS=$LOOPS; PLATFORM=$PLATFORM; KGO=$KGO; KGO_BEFORE=${KGO_BEFORE:-unset})"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "tree: $(git log -1 --format='%h %s' 2>/dev/null | cut -c1-100 || echo 'no git history here')"
  [ "$DEVICE" = cpu ] && echo "no GPU visible to torch: the loop ran on the CPU path (Triton interpreter), without bench timing on a GPU or profile"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
  echo "ncu: $(command -v ncu || echo 'not found: the profile step is skipped')"
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
{ cat "$OUTDIR/head.md"; echo "exit $rc after $((SECONDS - t0)) s"; echo; cat "$OUTDIR/README.md" 2>/dev/null || cat "$OUTDIR/run.log"; } > "$OUTDIR/summary.md"
mv "$OUTDIR/summary.md" "$OUTDIR/README.md"
rm -f "$OUTDIR/head.md"
cat "$OUTDIR/README.md"
exit $rc
