#!/usr/bin/env python3
"""H200 evidence for the published formats: `kgo init` + `kgo check` + `kgo bench` on each example under
examples/formats/, then kgo's full check against KernelBench's own `eval_kernel_against_ref` correctness
trials on one level-1 problem (23_Softmax) with the same ModelNew, measured side by side, alternating.

KernelBench's source is read from $KGO_KERNELBENCH or bench/.kernelbench (gitignored; see bench/README.md).
Writes $OUT/formats/*.json and $OUT/formats/summary.md (command, output, date). Without a GPU it says so and
exits 0."""
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
    print(text, flush=True)
    lines.append(text)


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
import sys, time, json, types, importlib.util, pathlib
src = pathlib.Path(sys.argv[1]) / "kernelbench"
t0 = time.perf_counter()
import torch
# kernelbench/__init__.py imports its LLM-client utilities (openai, litellm, dotenv); eval.py needs none of them,
# so the package is registered without running __init__. requests is only used to fetch problems online.
pkg = types.ModuleType("kernelbench"); pkg.__path__ = [str(src)]; sys.modules["kernelbench"] = pkg
try:
    import requests  # noqa: F401
except ImportError:
    sys.modules["requests"] = types.ModuleType("requests")
from kernelbench.eval import eval_kernel_against_ref
t1 = time.perf_counter()
res = eval_kernel_against_ref(open(sys.argv[2]).read(), open(sys.argv[3]).read(), num_correct_trials=5,
                              measure_performance=False, backend="triton", device=torch.device("cuda:0"))
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "eval_s": t2 - t1, "compiled": res.compiled,
                  "correctness": res.correctness, "metadata": {k: str(v) for k, v in res.metadata.items()}}))
"""


def side_by_side(work):
    problem = KB / "KernelBench" / "level1" / "23_Softmax.py"
    if not (KB / "src" / "kernelbench" / "eval.py").is_file() or not problem.is_file():
        log(f"\nKernelBench source not found under {KB}: side-by-side skipped (see bench/README.md)")
        return
    model_new = ROOT / "bench" / "formats" / "kb_softmax_model_new.py"
    p, _ = kgo("init", "kb23", model_new, "--platform", "H200", "--dir", work, "--force", "--reference", problem)
    if p.returncode != 0:
        log(f"\nkgo init on 23_Softmax failed: {p.stderr.strip()[:300]}")
        return
    ws = work / "kernel_opt_kb23"
    log("\n## kgo check vs KernelBench eval_kernel_against_ref (level1/23_Softmax.py, 4096 x 393216 fp32)\n")
    log("KernelBench: num_correct_trials=5 (its scripts' default), measure_performance=False, backend=triton; "
        "eval_s is the eval_kernel_against_ref call alone, process_s the whole process (torch import included).")
    log("kgo: `kgo check` whole command (worker start, torch import, 3 trials of the problem size, 3 odd edge "
        "shapes x 3 trials, float64 reference, NaN-poisoned outputs, determinism, stream-order and delegation "
        "checks).\n")
    log("| run | KernelBench eval_s | KernelBench process_s | KB correct | kgo check s | kgo verdict | kgo cases |")
    log("|---|---|---|---|---|---|---|")
    ratios = []
    for i in range(2):
        start = time.perf_counter()
        # KB/site: KernelBench's own Python dependencies (pydantic, requests) unpacked from their wheels, for a
        # GPU machine without internet (bench/README.md).
        env = dict(os.environ)
        if (KB / "site").is_dir():
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(KB / "site"), env.get("PYTHONPATH")]))
        kb = subprocess.run([sys.executable, "-c", KB_DRIVER, str(KB / "src"), str(problem), str(model_new)],
                            capture_output=True, text=True, timeout=1800, env=env)
        kb_process = time.perf_counter() - start
        try:
            kbj = json.loads(kb.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            log(f"KernelBench run failed: {kb.stderr.strip()[-600:]}")
            return
        (OUT / f"kb23_kernelbench_{i}.json").write_text(json.dumps(kbj, indent=1))
        c, secs = kgo("check", "--workspace", ws, "--json", "--detail", "--timeout", "1200", "--case-timeout", "600",
                      "--no-record")
        cj = save(f"kb23_kgo_check_{i}", c)
        ratios.append(secs / kbj["eval_s"])
        log(f"| {i} | {kbj['eval_s']:.2f} | {kb_process:.2f} | {kbj['correctness']} | {secs:.2f} | "
            f"{cj.get('verdict')} | {len((cj.get('harness') or {}).get('cases', []))} |")
    log(f"\nkgo check time / KernelBench eval time: {', '.join(f'{r:.2f}' for r in ratios)} "
        "(target: at most 1.0)")


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    log(f"# kgo formats on the H200 ({datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')})\n")
    log(f"command: {' '.join(sys.argv)}; kgo: {KGO}\n")
    if not has_gpu():
        log("no GPU visible to torch: skipped (this script records GPU evidence only)")
        (OUT / "summary.md").write_text("\n".join(lines) + "\n")
        return 0
    if not os.path.isfile(KGO):
        subprocess.run([str(ROOT / "scripts" / "build.sh")], check=True)
    work = OUT / "work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    examples(work)
    side_by_side(work)
    shutil.rmtree(work, ignore_errors=True)
    (OUT / "summary.md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
