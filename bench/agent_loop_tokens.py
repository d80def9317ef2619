#!/usr/bin/env python3
"""Output tokens (characters / 4) of an agent's full loop on one workspace, side by side:

  mcp     the loop through `kgo mcp` tools (raw JSON-RPC over its pipes; the tokens are the tool
          result's text, what the model reads; the whole JSON-RPC answer is shown beside it),
  cli     the same loop through `kgo --json` commands today (stdout; stdout + stderr beside it),
  before  the loop as an agent had to run it before kgo's MCP server and compact answers existed:
          a kgo built from --before-commit (or --before-kgo), `--json` commands (no next, no propose:
          memory create/update, check, bench, iterate accept/reject, an unfiltered wiki index).

Loop: init -> spec auto -> roofline -> baseline [-> profile] -> status -> wiki index -> plan ->
plan check -> check -> bench [-> profile v1] -> accept (propose) -> a wrong kernel, rejected -> memory list ->
mask -> report -> next (a terminal state; on a GPU also plan, named in the report) -> audit. The agent's own edits (plan text, the wrong kernel) are file
writes and count nothing; a plan's evidence quotes kgo profile's profile.json, else v0's timed latency (a
GPU without ncu); where nothing was profiled or timed (the CPU) the plan says `evidence: none` with a
correctness-only decision rule.
The mcp loop also reports the one-time cost of tools/list (its JSON-RPC answer's characters / 4).
--device cuda runs it on a GPU, with kgo profile when ncu is installed (skipped, and said so, without).
Goal (issue 15): mcp uses at most a quarter of before's tokens.

usage: bench/agent_loop_tokens.py [--kgo build/cli/kgo] [--before-commit REV | --before-kgo PATH]
                                  [--device cpu|cuda] [--loops mcp,cli] [--out DIR]
The 'before' of issue 15 is the revision before `kgo mcp` landed: --before-commit 0be6c05~1."""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from mcp_overhead import Mcp  # noqa: E402

GOAL = 4.0
SOFTMAX = ROOT / "examples" / "softmax"
REF = ROOT / "templates" / "ops" / "softmax" / "ref.py"
WRONG = ("y = e / tl.sum(e, axis=0)", "y = e / (tl.sum(e, axis=0) + 1.0)")  # every case fails


def tokens(text):
    return len(text) / 4


def build_before(rev):
    """kgo built from `rev` (git archive + cmake) into build-before-<sha>/, reused when present."""
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", rev], capture_output=True, text=True,
                         check=True).stdout.strip()
    top = ROOT / f"build-before-{sha[:12]}"
    kgo = top / "build" / "cli" / "kgo"
    if not kgo.exists():
        src = top
        src.mkdir(exist_ok=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", sha], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
        subprocess.run(["cmake", "-S", str(src), "-B", str(src / "build"), "-DCMAKE_BUILD_TYPE=RelWithDebInfo"],
                       check=True, capture_output=True)
        subprocess.run(["cmake", "--build", str(src / "build"), "--target", "kgo", "-j", str(os.cpu_count() or 2)],
                       check=True, capture_output=True)
    return kgo, top


def measured_number(ws):
    """(metric, value, file) the agent can cite: kgo profile's first number where v0 was profiled, else v0's
    timed latency (a GPU without ncu), else None (a CPU: nothing profiled or timed)."""
    profile = ws / "profiles" / "v0" / "profile.json"
    numbers = json.loads(profile.read_text()).get("numbers", {}) if profile.exists() else {}
    for k, v in numbers.items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return k, v, "profiles/v0/profile.json"
    perf = json.loads((ws / "memory" / "v0.json").read_text()).get("performance") or {}
    if isinstance(perf.get("latency_us"), (int, float)):
        return "latency_us", perf["latency_us"], "memory/v0.json"
    return None


def hypothesis(ws, description):
    """What the agent can honestly cite (measured_number); with nothing measured, none: it expects no timed
    movement and decides on correctness alone."""
    cited = measured_number(ws)
    if not cited:
        return (f"- change: {description}\n- evidence: none\n- expected: none\n"
                "- decision_rule: accept if correctness is PASS\n- follows: none\n")
    metric, value, where = cited
    return (f"- change: {description}\n- evidence: {metric} = {value:.6g} ({where})\n"
            "- expected: latency_us -10%\n- decision_rule: accept if latency_us falls by at least 5% and correctness "
            "is PASS\n- follows: none\n")


def plan_text(ws, n, category, description):
    """The agent's plan: every section filled, the Hypothesis as honest as the machine allows."""
    return (f"# Iteration V{n} Plan\n\n## Input Evidence\n\nprofile: memory-bound softmax -> loads dominate -> "
            f"{description}\n\n## Search Log\n\n| Source | Query | Finding | Actionability |\n|---|---|---|---|\n"
            "| [gpu-wiki] | vector loads | wide loads | high |\n| [ref-project] |  |  |  |\n| [public-web] |  |  |  |\n\n"
            f"## This Iteration's Action\n\n- action_category: {category}\n- description: {description}\n\n"
            f"## Hypothesis\n\n{hypothesis(ws, description)}\n"
            "## Expected Impact\n\nDRAM throughput up.\n\n## Risks and Rollback\n\nCorrectness; reject restores.\n")


class Loop:
    """One way in: runs steps, counts what the agent reads, keeps every answer."""

    def __init__(self, name, out):
        self.name, self.out, self.rows, self.n = name, out, [], 0
        self.end = None  # `kgo next` at the end of the loop

    def keep(self, step, text, extra, ok, note=""):
        self.n += 1
        self.rows.append((step, tokens(text), tokens(extra), ok, note))
        if self.out:
            d = self.out / self.name
            d.mkdir(parents=True, exist_ok=True)
            (d / f"{self.n:02d}_{step}.txt").write_text(text)

    def total(self, col=1):
        return sum(r[col] for r in self.rows)


class CliLoop(Loop):
    def __init__(self, name, out, kgo, env, cwd):
        super().__init__(name, out)
        self.kgo, self.env, self.cwd = kgo, env, cwd

    def run(self, step, *args, expect=(0,)):
        p = subprocess.run([str(self.kgo), "--json", *map(str, args)], capture_output=True, text=True, env=self.env,
                           cwd=self.cwd, timeout=3600)
        expect = expect if isinstance(expect, tuple) else (expect,)
        ok = p.returncode in expect
        self.keep(step, p.stdout, p.stdout + p.stderr, ok, "" if ok else f"exit {p.returncode}: {p.stderr[-300:]}")
        return p


class McpLoop(Loop):
    def __init__(self, name, out, kgo, env, cwd):
        super().__init__(name, out)
        self.server = Mcp(kgo, None, env, cwd=cwd)
        listed = self.server.rpc("tools/list", {})
        self.tools_list_chars = len(json.dumps(listed, separators=(",", ":")))
        self.schemas = {t["name"]: t["outputSchema"] for t in listed["result"]["tools"]}
        try:
            import jsonschema
            self.validator = jsonschema.Draft202012Validator
        except ImportError:
            self.validator = None

    def call(self, step, tool, args, expect_error=False):
        msg = self.server.rpc("tools/call", {"name": tool, "arguments": args})
        res = msg["result"]
        text = res["content"][0]["text"]
        ok = bool(res.get("isError")) == expect_error
        note = "" if ok else text[-300:]
        if ok and not res.get("isError") and self.validator:
            errors = list(self.validator(self.schemas[tool]).iter_errors(res["structuredContent"]))
            if errors:
                ok, note = False, f"outputSchema: {errors[0].message[:200]}"
        self.keep(step, text, json.dumps(msg, separators=(",", ":")), ok, note)
        return res.get("structuredContent", {})

    def close(self):
        self.server.close()


def new_loop(run, a, src, ws):
    """The loop through today's kgo: `run(step, tool, args, cli_argv)` is MCP or CLI."""
    w = {"workspace": str(ws)}
    dev = {"device": a.device}
    run("next", "next", {}, ["next"])
    # Two iterations (v1 accepted, v2 rejected): the budget fixed at init, so the loop has an end on a GPU too.
    run("init", "init", {"name": "softmax", "kernel": str(src / "kernel.py"), "platform": a.platform,
                         "reference": str(REF), "shape": [a.shape], "dir": str(ws.parent), "max_iterations": 2},
        ["init", "softmax", src / "kernel.py", "--platform", a.platform, "--reference", REF,
         "--shape", a.shape, "--dir", ws.parent, "--max-iterations", "2"])
    run("next", "next", w, ["next", "--workspace", ws])
    run("spec", "spec_auto", w, ["spec", "auto", "--workspace", ws])
    run("roofline", "roofline", {**w, "op": "softmax"}, ["roofline", "--op", "softmax", "--workspace", ws])
    run("baseline", "baseline", {**w, **dev}, ["baseline", "--device", a.device, "--quiet", "--workspace", ws])
    if a.profile:
        run("profile", "profile", w, ["profile", "--workspace", ws])
    run("status", "status", w, ["status", "--workspace", ws])
    run("wiki", "wiki_index", {"platform": a.platform}, ["wiki", "index", "--platform", a.platform])
    run("plan", "plan_new", {**w, "description": "wide loads"}, ["plan", "new", "--description", "wide loads",
                                                                 "--workspace", ws])
    (ws / "plans" / "v1_plan.md").write_text(plan_text(ws, 1, "vectorized_load", "wide loads"))
    run("plan_check", "plan_check", w, ["plan", "check", "--workspace", ws])
    run("check", "check", {**w, **dev}, ["check", "--device", a.device, "--workspace", ws])
    run("bench", "bench", {**w, **dev, **a.bench_args}, ["bench", "--device", a.device, *a.bench_flags,
                                                         "--workspace", ws])
    if a.profile:  # the iteration's own profile, before propose decides it
        run("profile_v1", "profile", {**w, "version": "v1"}, ["profile", "v1", "--workspace", ws])
    # the same kernel again: accepted, or on a GPU possibly rejected as slower within timing noise
    run("propose", "propose", {**w, **dev}, ["propose", "--device", a.device, "--workspace", ws],
        check=lambda s: s.get("check") == "PASS" and (s.get("verdict") == "accepted" or (
            a.device == "cuda" and s.get("reason", "").startswith("slower"))),
        expect=(0, 1) if a.device == "cuda" else 0)
    run("plan", "plan_new", {**w, "description": "drop the normalization"},
        ["plan", "new", "--description", "drop the normalization", "--workspace", ws])
    (ws / "plans" / "v2_plan.md").write_text(plan_text(ws, 2, "fusion", "drop the normalization"))
    run("propose_wrong", "propose", {**w, **dev, "kernel": str(src / "wrong.py")},
        ["propose", "--device", a.device, "--kernel", src / "wrong.py", "--workspace", ws],
        check=lambda s: s.get("verdict") == "rejected", expect=1)
    run("memory_list", "memory_list", w, ["memory", "list", "--workspace", ws])
    run("mask", "memory_mask", {**w, "versions": ["v2"]}, ["memory", "mask", "v2", "--workspace", ws])
    run("report", "report", w, ["report", "--workspace", ws])
    # A CPU session ends (correct_only); on a GPU the Stop Conditions are met (done) or the two iterations of the
    # budget are spent (budget_spent).
    run("next_end", "next", w, ["next", "--workspace", ws], check=lambda s: s.get("terminal") is True)
    run("audit", "audit", w, ["audit", "--workspace", ws])


def before_loop(loop, a, src, ws):
    """The same loop with the commands kgo had before: a record by hand, check, bench, accept/reject."""
    r = loop.run
    r("init", "init", "softmax", src / "kernel.py", "--platform", a.platform, "--reference", REF,
      "--shape", a.shape, "--dir", ws.parent)
    r("spec", "spec", "auto", "--workspace", ws)
    r("roofline", "roofline", "--op", "softmax", "--workspace", ws)
    r("baseline", "baseline", "--device", a.device, "--quiet", "--workspace", ws)
    if a.profile:
        r("profile", "profile", "--workspace", ws)
    r("status", "status", "--workspace", ws)
    r("wiki", "wiki", "index")
    for n, category, description, wrong in [(1, "vectorized_load", "wide loads", False),
                                            (2, "fusion", "drop the normalization", True)]:
        r("memory_create", "memory", "create", "--workspace", ws)
        r("plan", "plan", "new", f"v{n}", "--workspace", ws)
        (ws / "plans" / f"v{n}_plan.md").write_text(plan_text(ws, n, category, description))
        r("memory_update", "memory", "update", f"v{n}", "--set", f"optimization.hypothesis={description}",
          "--set", f"optimization.action_category={category}", "--workspace", ws)
        if wrong:
            shutil.copy(src / "wrong.py", ws / "kernel.py")
            r("check", "check", "--device", a.device, "--workspace", ws, expect=1)
            r("reject", "iterate", "reject", "v2", "--reason", "check FAIL", "--workspace", ws)
        else:
            r("check", "check", "--device", a.device, "--workspace", ws)
            if a.device == "cuda":
                r("bench", "bench", *a.bench_flags, "--workspace", ws)
            else:  # a CPU bench is not recorded; the agent still reads it
                r("bench", "bench", "--device", "cpu", *a.bench_flags, "--workspace", ws)
            r("accept", "iterate", "accept", "v1", "--workspace", ws)
    r("memory_list", "memory", "list", "--workspace", ws)
    r("mask", "memory", "mask", "v2", "--workspace", ws)
    # exit 19 allowed: that kgo's audit flags the uncited numbers its own baseline wrote into memory/v0.json
    r("audit", "audit", "--workspace", ws, expect=(0, 19))


def sources(tmp):
    src = pathlib.Path(tmp) / "src"
    src.mkdir()
    good = (SOFTMAX / "kernel.py").read_text()
    assert WRONG[0] in good
    (src / "kernel.py").write_text(good)
    (src / "wrong.py").write_text(good.replace(*WRONG))
    return src


def run_new(kind, a, env):
    with tempfile.TemporaryDirectory() as tmp:
        src, ws = sources(tmp), pathlib.Path(tmp) / "w" / "kernel_opt_softmax"
        ws.parent.mkdir()
        if kind == "mcp":
            loop = McpLoop("mcp", a.out, a.kgo, env, tmp)

            def run(step, tool, args, argv, check=None, expect=0):
                s = loop.call(step, tool, args)
                if step == "next_end":
                    loop.end = s
                if check and not check(s):
                    loop.rows[-1] = (*loop.rows[-1][:3], False, f"unexpected: {json.dumps(s)[:300]}")
            try:
                new_loop(run, a, src, ws)
            finally:
                loop.close()
        else:
            loop = CliLoop("cli", a.out, a.kgo, env, tmp)

            def run(step, tool, args, argv, check=None, expect=0):
                p = loop.run(step, *argv, expect=expect)
                if step == "next_end" and loop.rows[-1][3]:
                    loop.end = json.loads(p.stdout)
                if check and loop.rows[-1][3] and not check(json.loads(p.stdout)):
                    loop.rows[-1] = (*loop.rows[-1][:3], False, f"unexpected: {p.stdout[:300]}")
            new_loop(run, a, src, ws)
        return loop


def run_before(a, env, kgo, data_dir):
    with tempfile.TemporaryDirectory() as tmp:
        src, ws = sources(tmp), pathlib.Path(tmp) / "w" / "kernel_opt_softmax"
        ws.parent.mkdir()
        loop = CliLoop("before", a.out, kgo, {**env, "KGO_DATA_DIR": str(data_dir)}, tmp)
        before_loop(loop, a, src, ws)
        return loop


def report(loops, a):
    lines = [f"# Agent loop output tokens (characters / 4), device {a.device}, platform {a.platform}\n",
             "| loop | steps | tokens read | whole answers | failed steps |", "|---|---|---|---|---|"]
    for lp in loops:
        bad = [f"{r[0]} ({r[4]})" for r in lp.rows if not r[3]]
        lines.append(f"| {lp.name} | {len(lp.rows)} | {lp.total():.0f} | {lp.total(2):.0f} | {'; '.join(bad) or 'none'} |")
    for lp in loops:
        if lp.end:
            lines.append(f"\n{lp.name}: the loop ends with `kgo next` in state {lp.end.get('state')} "
                         f"(terminal: {lp.end.get('terminal')}): {str(lp.end.get('why', ''))[:300]}")
    lines.append("\n'tokens read': mcp the tool result text; cli and before stdout. 'whole answers': mcp the whole "
                 "JSON-RPC answer (structuredContent + text), cli and before stdout + stderr.\n")
    for lp in loops:
        lines.append(f"\n## {lp.name}\n\n| step | tokens | whole |\n|---|---|---|")
        lines += [f"| {r[0]} | {r[1]:.0f} | {r[2]:.0f} |" for r in lp.rows]
    by = {lp.name: lp for lp in loops}
    ok = all(r[3] for lp in loops for r in lp.rows)
    if "before" in by and "mcp" in by:
        ratio = by["before"].total() / by["mcp"].total()
        lines.append(f"\nbefore / mcp: {ratio:.1f}x fewer tokens through MCP (goal: at least {GOAL:.0f}x)")
        ok = ok and ratio >= GOAL
    if "cli" in by and "mcp" in by:
        lines.append(f"mcp / cli: {by['mcp'].total() / by['cli'].total():.2f} (the same documents)")
    if "mcp" in by:
        chars = by["mcp"].tools_list_chars
        lines.append(f"tools/list, once per session: {chars} characters ({tokens(chars * 'x'):.0f} tokens), "
                     f"{len(by['mcp'].schemas)} tools")
    return "\n".join(lines) + "\n", ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kgo", default=str(ROOT / "build" / "cli" / "kgo"))
    ap.add_argument("--before-commit", help="build kgo from this revision for the 'before' loop")
    ap.add_argument("--before-kgo", help="a kgo binary for the 'before' loop (its source tree: --before-data)")
    ap.add_argument("--before-data", help="KGO_DATA_DIR of --before-kgo (default: its build's parent's parent)")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--platform", default="H100")
    ap.add_argument("--loops", default="mcp,cli", help="which of today's loops to run: mcp, cli or both")
    ap.add_argument("--out", type=pathlib.Path, help="keep every answer and the report here")
    a = ap.parse_args()
    a.shape = "8x33" if a.device == "cpu" else "4096x4096"
    # on the CPU (Triton interpreter) a short bench: one size, exactly 3 runs, no torch.compile
    a.bench_args = {"size": ["64x128"], "runs": 3, "precision": 0, "no_compile": True} if a.device == "cpu" else {}
    a.bench_flags = ["--size", "64x128", "--runs", "3", "--precision", "0", "--no-compile"] if a.device == "cpu" else []
    a.profile = a.device == "cuda" and shutil.which("ncu") is not None
    if a.device == "cuda" and not a.profile:
        print("ncu not found: the loop runs without its profile step")
    env = {**os.environ, "KGO_DATA_DIR": str(ROOT), "KGO_HARNESS_DAEMON": "0"}
    env.pop("KGO_GPU_WIKI", None)
    loops = [run_new(kind, a, env) for kind in a.loops.split(",")]
    if a.before_commit or a.before_kgo:
        if a.before_commit:
            kgo, data = build_before(a.before_commit)
        else:
            kgo = pathlib.Path(a.before_kgo).resolve()
            data = pathlib.Path(a.before_data) if a.before_data else kgo.parents[2]
        loops.append(run_before(a, env, kgo, data))
    text, ok = report(loops, a)
    print(text)
    if a.out:
        (a.out / "README.md").write_text(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
