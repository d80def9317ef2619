#!/usr/bin/env bash
# A real optimization session on a GPU (issue: hypotheses, experience, report): $OP (softmax, layer_norm) from v0
# through the candidate edits of bench/learning/$OP.candidates (whole files, then one-line tunings), each guided by
# `kgo profile` and `kgo experience recommend`, planned with a hypothesis quoting the previous profile,
# checked, benched, profiled, then accepted or rejected by the plan's decision rule on kgo's own stamped
# latency (accept: PASS and at least 2% faster than the best accepted version). Ends with `kgo report --html`.
# Usage (repo root):
#   scripts/device-pack.sh                                     # here: builds kgo into .device-carry/
#   KGO=.device-carry/kgo OUT=$OUT bench/learning_session_h200.sh     # there (carry .device-carry)
# Writes $OUT/session/ (fold its figures into evidence/h200-<date>.md): README.md (commands, exits, times), the
# workspace's report/ (final_report.md, benchmark.md, charts/*.svg, report.html), README.md, memory/,
# plans/, profiles/*/{profile.json,ncu_summary.md}, git_log.txt, and experience/ (the store + EXPERIENCE.md).
# Stops trying new candidates after $BUDGET_S seconds (default 270) so that it ends within about 6 minutes.
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
KGO=$(realpath "${KGO:-.device-carry/kgo}")
OUT=${OUT:-/tmp/kgo_learning_out}
BUDGET_S=${BUDGET_S:-270}
S="$OUT/session"
P=/tmp/kgo_learning_ws
rm -rf "$P" "$S"
mkdir -p "$P" "$S"
export KGO_DATA_DIR=${KGO_DATA_DIR:-$REPO}
export KGO_EXPERIENCE_DIR="$S/experience"   # a fresh store: the session's own lessons only
OP=${OP:-softmax}
CANDIDATE_FILE=bench/learning/$OP.candidates
[[ -f $CANDIDATE_FILE ]] || { echo "no candidates for op $OP ($CANDIDATE_FILE)" >&2; exit 2; }
T=templates/ops/$OP
W="$P/kernel_opt_$OP"
# The card decides the platform whose cited roofs set the targets.
case $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1) in
  *H100*) PLATFORM=H100 ;;
  *) PLATFORM=H200 ;;
esac
SIZES=(--size 32768x256 --size 4096x4096 --size 1024x32768)
exec > >(tee "$S/log.txt") 2>&1
{
  echo "# kgo learning session: $OP on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1) ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
  echo
  echo "Script: bench/learning_session_h200.sh (BUDGET_S=$BUDGET_S). Every command, its exit status and wall time:"
  echo
  echo "| command | exit | wall |"
  echo "|---|---|---|"
} > "$S/README.md"
run() {
  local t0=$SECONDS
  "$@" > /tmp/kgo_learning_last.out 2>&1
  local rc=$?
  local cmd="$*"
  echo "| \`${cmd/#"$KGO"/kgo}\` | $rc | $((SECONDS - t0)) s |" | sed "s|$P|<ws>|g; s|$S|<out>|g" >> "$S/README.md"
  echo "== $rc $((SECONDS - t0))s: ${cmd/#"$KGO"/kgo}"
  tail -4 /tmp/kgo_learning_last.out
  return $rc
}
latency() { python3 -c "import json,sys; print(json.load(open('$W/memory/$1.json'))['performance']['latency_us'])" 2>/dev/null; }
gate_ok() { python3 -c "import json,sys; sys.exit(0 if json.load(open('$W/memory/$1.json'))['correctness']['status']=='PASS' else 1)" 2>/dev/null; }

"$KGO" --version
run "$KGO" init "$OP" "$T/v1_baseline.py" --platform "$PLATFORM" --reference "$T/ref.py" --shape 4096x4096 --dir "$P"
run "$KGO" spec auto --workspace "$W"
run "$KGO" roofline --op "$OP" --shape 32768x256 --shape 4096x4096 --shape 1024x32768 --dtype fp32 --workspace "$W"
run "$KGO" harness start --device cuda
run "$KGO" memory create --workspace "$W"
run "$KGO" check --workspace "$W"
run "$KGO" bench --workspace "$W" "${SIZES[@]}"
run "$KGO" profile --op "$OP" --workspace "$W"
run "$KGO" iterate accept v0 --workspace "$W"
best=$(latency v0); best_v=v0; accepted=0; rejected=0

# candidate: action file-or-edit change-description
# Whole-file variants and one-line tunings of v3_coalesced (the best whole-file variant on the H200 so far), then
# the split-row kernel of examples/softmax/candidates/ (wide rows shared by several programs) and tunings of it;
# a tuning whose text is absent from the current kernel (its base was rejected) is skipped, said so.
mapfile -t CANDIDATES < <(grep -v "^#" "$CANDIDATE_FILE" | grep .)
n=0
for c in "${CANDIDATES[@]}"; do
  if (( SECONDS > BUDGET_S )); then echo "budget of $BUDGET_S s reached: no more candidates"; break; fi
  IFS='|' read -r action src change <<< "$c"
  n=$((n + 1)); v="v$n"
  before=$(sha256sum < "$W/kernel.py")
  if [[ $src == sed:* ]]; then sed -i "${src#sed:}" "$W/kernel.py"; else cp "${src//\$T/$T}" "$W/kernel.py"; fi
  if [[ $(sha256sum < "$W/kernel.py") == "$before" ]]; then echo "$action: no change to the current kernel, skipped"; n=$((n - 1)); continue; fi
  run "$KGO" memory create --workspace "$W"
  run "$KGO" experience recommend --from-workspace --workspace "$W"
  advice=$("$KGO" experience recommend --from-workspace --workspace "$W" --json 2>/dev/null |
           python3 -c "import json,sys; a=json.load(sys.stdin)['advice']; print(next((x['id'] for x in a if x['action_category']=='$action'), 'none'))" 2>/dev/null || echo none)
  run "$KGO" plan new "$v" --workspace "$W"
  python3 - "$W" "$n" "$best_v" "$action" "$change" "$advice" "$OP" <<'PY'
import json, pathlib, re, sys
ws, n, base, action, change, follows, op = pathlib.Path(sys.argv[1]), int(sys.argv[2]), *sys.argv[3:]
prof = json.loads((ws / "profiles" / base / "profile.json").read_text())
num, verdict = prof["numbers"], prof["verdict"]
ev = [f"- evidence: {k} = {num[k]} (profiles/{base}/profile.json)" for k in ("dram_pct", "memory_pct", "achieved_occupancy_pct") if num.get(k) is not None]
plan = ws / "plans" / f"v{n}_plan.md"
text = plan.read_text()
fill = {
    "Input Evidence": f"{verdict['evidence']} -> {verdict['inference']} -> {action}: {change}",
    "Search Log": "| Source | Query | Finding | Actionability |\n|---|---|---|---|\n"
                  f"| [gpu-wiki] | {op} {verdict['bottleneck']}-bound | roofline targets in README | the bandwidth roof bounds the gain |\n"
                  f"| [ref-project] | templates/ops/{op} | variant kernels | this iteration's edit |\n| [public-web] |  |  |  |",
    "This Iteration's Action": f"- action_category: {action}\n- description: {change}",
    "Hypothesis": f"- change: {change}\n" + "\n".join(ev) + "\n- expected: latency_us -5%\n"
                  "- decision_rule: accept if correctness is PASS and latency_us is at least 2% below the best accepted version\n"
                  f"- follows: {follows}",
    "Expected Impact": f"latency_us down about 5% at the session's sizes; {verdict['bottleneck']} stays the bottleneck",
    "Risks and Rollback": "correctness on edge shapes (kgo check); `kgo iterate reject` restores the best kernel",
}
for name, body in fill.items():
    text = re.sub(r"(## " + re.escape(name) + r"\n)(.*?)(?=\n## |\Z)", lambda m: m.group(1) + "\n" + body + "\n", text, flags=re.S)
plan.write_text(text)
PY
  run "$KGO" plan check "$v" --workspace "$W"
  run "$KGO" check --workspace "$W"
  run "$KGO" bench --workspace "$W" "${SIZES[@]}"
  run "$KGO" profile --op "$OP" --workspace "$W"
  lat=$(latency "$v")
  if gate_ok "$v" && [[ -n $lat ]] && python3 -c "import sys; sys.exit(0 if $lat <= 0.98 * $best else 1)"; then
    run "$KGO" iterate accept "$v" --workspace "$W" && { best=$lat; best_v=$v; accepted=$((accepted + 1)); }
  else
    run "$KGO" iterate reject "$v" --workspace "$W" --reason "decision rule: ${lat:-no} us is not 2% below $best_v's $best us (or not PASS)" \
      --lesson "$action did not pay off after $best_v" && rejected=$((rejected + 1))
  fi
done
run "$KGO" harness stop
run "$KGO" report --html --workspace "$W"
run "$KGO" audit --workspace "$W"
run "$KGO" experience sync
run "$KGO" experience stats
echo "accepted $accepted, rejected $rejected, best $best_v ($best us)" | tee -a "$S/README.md"
cp -r "$W/report" "$S/report"
cp "$W/README.md" "$S/workspace_README.md"
mkdir -p "$S/memory" "$S/plans" "$S/profiles"
cp "$W"/memory/*.json "$S/memory/"; cp "$W"/plans/*.md "$S/plans/" 2>/dev/null
for d in "$W"/profiles/v*; do mkdir -p "$S/profiles/$(basename "$d")"; cp "$d"/profile.json "$d"/ncu_summary.md "$S/profiles/$(basename "$d")/" 2>/dev/null; done
git -C "$W" log --format='%h %s' > "$S/git_log.txt"
rm -f "$S/experience/.lock"
ls -la "$S"
