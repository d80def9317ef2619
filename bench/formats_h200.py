#!/usr/bin/env python3
"""H200 evidence for the published formats: `kgo init` + `kgo check` + `kgo bench` on each example under
examples/formats/, then kgo's full check against KernelBench's own `eval_kernel_against_ref` correctness
trials on level-1 problems (23_Softmax, a torch call; 42_Max_Pooling_2D, an nn module) with the same ModelNew,
measured side by side, alternating, with the catalog op kgo's roofline maps each problem to.

KernelBench's source is read from $KGO_KERNELBENCH or bench/.kernelbench (gitignored; see bench/README.md); a
problem whose file is not there is skipped. Writes $OUT/formats/*.json and $OUT/formats/summary.md (command,
output, date). Without a GPU it only checks that KernelBench's eval imports here, says so and exits 0.
KGO_FORMATS_PARTS=kernelbench runs the side-by-side alone; KGO_KB_RUNS sets its alternations (default 2)."""
import datetime
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
KGO = os.environ.get("KGO_BIN", str(ROOT / "build" / "cli" / "kgo"))
OUT = pathlib.Path(os.environ.get("OUT", "/tmp/kgo-formats-out")) / "formats"
EX = ROOT / "examples" / "formats"
KB = pathlib.Path(os.environ.get("KGO_KERNELBENCH", ROOT / "bench" / ".kernelbench"))
# KGO_FORMATS_PARTS: "examples", "kernelbench" or both (default); KGO_KB_RUNS: alternations per problem.
PARTS = os.environ.get("KGO_FORMATS_PARTS", "examples,kernelbench").split(",")
KB_RUNS = int(os.environ.get("KGO_KB_RUNS", "2"))
EXAMPLES = {
    "fmh66": ("kernel.py", ["--reference", EX / "fmh66" / "ref.py"], []),
    "kernelbench": ("model_new.py", ["--reference", EX / "kernelbench" / "problem.py"],
                    ["--dim", "batch=4096", "--dim", "features=4000"]),
    "sol-execbench": ("kernel.py", ["--reference", EX / "sol-execbench" / "definition.json"], []),
    "tritonbench": ("operator.py", [], []),
    "cuda-solve": ("kernel.cu", ["--reference", EX / "cuda-solve" / "ref.py", "--inputs", "A,B", "--outputs", "C",
                                 "--size", "A=M*K", "--size", "B=K*N", "--size", "C=M*N",
                                 "--shape", "1024x1024x1024"], []),
}
lines = []


def log(text=""):
    """Prints and rewrites summary.md, so a run cut by its time limit keeps what it measured."""
    print(text, flush=True)
    lines.append(text)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "summary.md").write_text("\n".join(lines) + "\n")


def kgo(*args, cwd=None):
    env = dict(os.environ, KGO_HARNESS_DAEMON="0", KGO_DATA_DIR=str(ROOT))
    start = time.perf_counter()
    p = subprocess.run([KGO, *map(str, args)], capture_output=True, text=True, cwd=cwd, env=env, timeout=1800)
    return p, time.perf_counter() - start


def has_gpu():
    try:
        import torch
        return torch.cuda.is_available()
    except Exception:
        return False


def save(name, proc):
    (OUT / f"{name}.json").write_text(proc.stdout)
    try:
        return json.loads(proc.stdout)
    except ValueError:
        (OUT / f"{name}.stderr.txt").write_text(proc.stderr)
        return {}


def examples(work):
    log("## Examples: kgo init + check + bench (H200)\n")
    log("| format | check verdict | cases | check s | bench verdict | median us (first size) | vs eager |")
    log("|---|---|---|---|---|---|---|")
    for name, (kernel, init_flags, run_flags) in EXAMPLES.items():
        p, _ = kgo("init", name.replace("-", "_"), EX / name / kernel, "--platform", "H200", "--dir", work,
                   "--force", *init_flags)
        if p.returncode != 0:
            log(f"| {name} | init failed: {p.stderr.strip()[:200]} | | | | | |")
            continue
        ws = work / f"kernel_opt_{name.replace('-', '_')}"
        c, secs = kgo("check", "--workspace", ws, "--json", "--detail", "--timeout", "600", *run_flags)
        cj = save(f"{name}_check", c)
        b, _ = kgo("bench", "--workspace", ws, "--json", "--quiet", *run_flags)
        bj = save(f"{name}_bench", b)
        sizes = (bj.get("harness") or bj).get("sizes") or []
        first = sizes[0] if sizes else {}
        log(f"| {name} | {cj.get('verdict')} | {len((cj.get('harness') or {}).get('cases', []))} | {secs:.1f} | "
            f"{bj.get('verdict')} | {first.get('median_us')} | {first.get('speedup_vs_eager')} |")


KB_DRIVER = r"""
import sys, time, json, types, importlib, pathlib
src = pathlib.Path(sys.argv[1]) / "kernelbench"
t0 = time.perf_counter()
import torch
# kernelbench/__init__.py and utils.py import its LLM-client utilities (dotenv, tqdm, openai, litellm) and
# requests; eval_kernel_against_ref uses none of them, so the package is registered without running __init__
# and whichever of them this offline machine lacks is stubbed.
pkg = types.ModuleType("kernelbench"); pkg.__path__ = [str(src)]; sys.modules["kernelbench"] = pkg
STUBS = {"requests": {}, "dotenv": {"load_dotenv": lambda *a, **k: False}, "tqdm": {"tqdm": lambda it=None, *a, **k: it},
         "openai": {"OpenAI": object}, "litellm": {"completion": None}}
for name, attrs in STUBS.items():
    try:
        importlib.import_module(name)
    except ImportError:
        sys.modules[name] = types.ModuleType(name); sys.modules[name].__dict__.update(attrs)
from kernelbench.eval import eval_kernel_against_ref
import kernelbench.utils  # noqa: F401  (eval imports it inside the call)
t1 = time.perf_counter()
if sys.argv[2] == "--import-only":
    print(json.dumps({"import_s": t1 - t0})); sys.exit(0)
res = eval_kernel_against_ref(open(sys.argv[2]).read(), open(sys.argv[3]).read(), num_correct_trials=5,
                              measure_performance=False, backend="triton", device=torch.device("cuda:0"))
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "eval_s": t2 - t1, "compiled": res.compiled,
                  "correctness": res.correctness, "metadata": {k: str(v) for k, v in res.metadata.items()}}))
"""
# Level-1 problems and the ModelNew kgo and KernelBench both judge.
KB_PROBLEMS = [("23_Softmax.py", "kb_softmax_model_new.py", "4096 x 393216 fp32, torch.softmax"),
               ("42_Max_Pooling_2D.py", "kb_maxpool2d_model_new.py", "32 x 64 x 512 x 512 fp32, nn.MaxPool2d(4, 1, 1)")]


def kernelbench(*args):
    """KernelBench's driver in its own process: (parsed last stdout line or None, process seconds, stderr)."""
    # KB/site: KernelBench's own Python dependencies (pydantic, requests) unpacked from their wheels, for a GPU
    # machine without internet (bench/README.md).
    env = dict(os.environ)
    if (KB / "site").is_dir():
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(KB / "site"), env.get("PYTHONPATH")]))
    start = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", KB_DRIVER, str(KB / "src"), *map(str, args)], capture_output=True,
                       text=True, timeout=1800, env=env)
    try:
        return json.loads(p.stdout.strip().splitlines()[-1]), time.perf_counter() - start, p.stderr
    except (ValueError, IndexError):
        return None, time.perf_counter() - start, p.stderr


def roofline_text(roof):
    if not roof:
        return "-"
    if not roof.get("op"):
        return roof.get("message") or "custom"
    shapes = sorted({"x".join(map(str, s["op_shape"])) for s in roof.get("shapes") or []})
    return f"{roof['op']} {' '.join(shapes)}"


def side_by_side(work):
    if not (KB / "src" / "kernelbench" / "eval.py").is_file():
        log(f"\nKernelBench source not found under {KB}: side-by-side skipped (see bench/README.md)")
        return
    log("\n## kgo check vs KernelBench eval_kernel_against_ref (level 1)\n")
    log("KernelBench: num_correct_trials=5 (its scripts' default), measure_performance=False, backend=triton; "
        "eval_s is the eval_kernel_against_ref call alone, process_s the whole process (torch import included).")
    log("kgo: `kgo check` whole command (worker start, torch import, 3 trials of the problem size, odd edge "
        "shapes x 3 trials, float64 reference, NaN-poisoned outputs, determinism, stream-order and delegation "
        "checks); roofline: the catalog op and shape kgo's roofline counts for the problem.\n")
    log("| problem | run | KernelBench eval_s | KernelBench process_s | KB correct | kgo check s | kgo verdict | "
        "kgo cases (passed/skipped) | kgo / KB | kgo roofline |")
    log("|---|---|---|---|---|---|---|---|---|---|")
    for problem_name, model_new_name, what in KB_PROBLEMS:
        problem = KB / "KernelBench" / "level1" / problem_name
        if not problem.is_file():
            log(f"| {problem_name} | not under {KB}: skipped | | | | | | | | |")
            continue
        model_new = ROOT / "bench" / "formats" / model_new_name
        tag = problem_name.split("_")[0]
        p, _ = kgo("init", f"kb{tag}", model_new, "--platform", "H200", "--dir", work, "--force",
                   "--reference", problem)
        if p.returncode != 0:
            log(f"| {problem_name} | kgo init failed: {p.stderr.strip()[:300]} | | | | | | | | |")
            continue
        ws = work / f"kernel_opt_kb{tag}"
        for i in range(KB_RUNS):
            kbj, kb_process, err = kernelbench(problem, model_new)
            if kbj is None:
                log(f"| {problem_name} | {i} | KernelBench run failed: {err.strip()[-400:]} | | | | | | | |")
                break
            (OUT / f"kb{tag}_kernelbench_{i}.json").write_text(json.dumps(kbj, indent=1))
            c, secs = kgo("check", "--workspace", ws, "--json", "--detail", "--timeout", "1200", "--case-timeout",
                          "600", "--no-record")
            cj = save(f"kb{tag}_kgo_check_{i}", c)
            cases = (cj.get("harness") or {}).get("cases", [])
            passed = sum(x.get("status") == "PASS" for x in cases)
            skipped = sum(x.get("status") == "SKIPPED" for x in cases)
            log(f"| {problem_name} ({what}) | {i} | {kbj['eval_s']:.2f} | {kb_process:.2f} | {kbj['correctness']} | "
                f"{secs:.2f} | {cj.get('verdict')} | {passed}/{skipped} of {len(cases)} | "
                f"{secs / kbj['eval_s']:.2f} | {roofline_text((cj.get('harness') or {}).get('roofline'))} |")
    log("\nkgo / KB: kgo check time / KernelBench eval time (target: at most 1.0)")


def import_check():
    """CPU path: whether KernelBench's eval imports with this machine's packages (and bench/.kernelbench/site)."""
    if not (KB / "src" / "kernelbench" / "eval.py").is_file():
        log(f"KernelBench source not found under {KB}: the GPU side-by-side would be skipped (see bench/README.md)")
        return
    kbj, _, err = kernelbench("--import-only")
    log(f"KernelBench eval import: {'ok in %.1f s' % kbj['import_s'] if kbj else 'FAILED: ' + err.strip()[-400:]}")
    present = [name for name, _, _ in KB_PROBLEMS if (KB / "KernelBench" / "level1" / name).is_file()]
    log(f"level-1 problems present for the side-by-side: {', '.join(present) or 'none'}")


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    log(f"# kgo formats on the H200 ({datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')})\n")
    log(f"command: {' '.join(sys.argv)}; kgo: {KGO}; parts: {','.join(PARTS)}; KernelBench runs: {KB_RUNS}\n")
    if not has_gpu():
        import_check()
        log("no GPU visible to torch: skipped (this script records GPU evidence only)")
        return 0
    if not os.path.isfile(KGO):
        subprocess.run([str(ROOT / "scripts" / "build.sh")], check=True)
    work = OUT / "work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    if "examples" in PARTS:
        examples(work)
    if "kernelbench" in PARTS:
        side_by_side(work)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
