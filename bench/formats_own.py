#!/usr/bin/env python3
"""The formats' own harnesses for bench/formats_side_by_side.py, each run as its authors run it, offline:
- KernelBench: `eval_kernel_against_ref`, loaded in one long-lived process (`formats_own.py kb-serve ROOT`,
  JSON lines) from either layout KernelBench has had: src/eval.py (the package is `src`, the repository root on
  sys.path) or src/kernelbench/eval.py (the package is `kernelbench`, src/ on sys.path). eval.py imports its
  siblings relatively (`from . import utils`), so it is imported as a submodule of its package, __init__ included.
  Third-party modules this machine lacks that the package imports only for its LLM clients (dotenv, openai,
  litellm, ...) are stubbed, and each stub is reported; torch, numpy and triton never are.
- fmh66: skills/*/profiling/script/correctness_check.py on demo/{cuda,triton}/<op>/v*/v* with the demo's dims.
- SOL-ExecBench (NVIDIA/SOL-ExecBench): its CLI `sol_execbench.cli.main <problem dir> --solution <json> --json`
  from DIR/src, each trace's evaluation status; DIR/examples/<lang>/<problem>/ with definition.json,
  workload.jsonl and solution_*.json, the repository's own published example solutions.
- tritonbench (meta-pytorch/tritonbench): `run.py --op <op> --metrics accuracy` from DIR on the operators named
  in DIR/ops.txt, each operator's kernel (the non-baseline benchmarks) against its baseline.
Each one's Python dependencies the GPU machine lacks are unpacked from wheels into DIR/site (bench/README.md)."""
import importlib
import json
import math
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time
import types

ROOT = pathlib.Path(__file__).resolve().parents[1]
NEVER_STUBBED = {"torch", "numpy", "triton"}


def has_cuda():
    try:
        import torch
        return torch.cuda.is_available()
    except ImportError:
        return False


def _site_env(folder):
    env = dict(os.environ)
    site = pathlib.Path(folder) / f"site-py{sys.version_info.major}.{sys.version_info.minor}"  # wheels are per version
    if site.is_dir():
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH")]))
    return env


# ---- KernelBench ------------------------------------------------------------------------------------------------

def kb_eval_location(root):
    """(package name, folder to put on sys.path) of the KernelBench eval.py under root, in the layouts it has had."""
    root = pathlib.Path(root).resolve()
    for eval_py in (root / "src" / "kernelbench" / "eval.py", root / "src" / "eval.py",
                    root / "kernelbench" / "eval.py"):
        if eval_py.is_file():
            return eval_py.parent.name, eval_py.parent.parent
    raise SystemExit(f"no KernelBench eval.py under {root}: looked for src/kernelbench/eval.py (current layout) and "
                     "src/eval.py (earlier layout); extract the archive as bench/README.md says")


class _Stub(type(sys)):
    """A missing third-party module: any attribute is a class that accepts anything (a pydantic BaseModel's
    subclass gets its annotated defaults and keyword fields, as eval's KernelExecResult needs)."""
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)

        def init(obj, *args, **kw):
            for klass in reversed(type(obj).__mro__):
                for field in getattr(klass, "__annotations__", {}):
                    if hasattr(klass, field) and not callable(getattr(klass, field)):
                        setattr(obj, field, _copy(getattr(klass, field)))
            obj.__dict__.update(kw)
        value = type(name, (), {"__init__": init, "__call__": lambda *a, **k: None,
                                "model_dump": lambda obj, **k: dict(obj.__dict__)})
        setattr(self, name, value)
        return value


def _copy(value):
    return type(value)(value) if isinstance(value, (dict, list)) else value


def kb_load(root):
    """eval_kernel_against_ref from the KernelBench under root: (function, layout text, stubbed module names)."""
    package, path = kb_eval_location(root)
    sys.path.insert(0, str(path))
    stubbed, made = [], set()
    for _ in range(50):
        try:
            module = importlib.import_module(f"{package}.eval")
            return module.eval_kernel_against_ref, f"{package}.eval from {path}", stubbed
        except ModuleNotFoundError as e:
            top = (e.name or "").split(".")[0]
            if not top or top in NEVER_STUBBED or top == package or e.name in made:
                raise
            for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
                del sys.modules[name]
            parts = e.name.split(".")
            for i in range(1, len(parts) + 1):
                name = ".".join(parts[:i])
                if name not in sys.modules:  # a real parent package stays; only what is missing is stubbed
                    sys.modules[name] = _Stub(name)
                    sys.modules[name].__path__ = []
                    made.add(name)
                if i > 1:
                    setattr(sys.modules[".".join(parts[:i - 1])], parts[i - 1], sys.modules[name])
            stubbed += [] if top in stubbed else [top]
    raise SystemExit(f"KernelBench eval still fails to import after stubbing {stubbed}")


def kb_serve(root, device):
    """One JSON line per [problem, kernel] line on stdin. eval's own prints go to stderr: stdout is the protocol."""
    proto = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    t = time.perf_counter()
    fn, layout, stubbed = kb_load(root)
    import inspect
    import torch
    params = inspect.signature(fn).parameters
    print(json.dumps({"ready": layout, "stubbed": stubbed, "load_s": time.perf_counter() - t,
                      "parameters": list(params)}), file=proto, flush=True)
    for line in sys.stdin:
        ref, new = json.loads(line)
        t = time.perf_counter()
        try:
            ref_src, new_src = pathlib.Path(ref).read_text(), pathlib.Path(new).read_text()
        except OSError as e:
            print(json.dumps({"own_pass": None, "own_detail": f"unreadable: {e}", "own_seconds": 0}), file=proto,
                  flush=True)
            continue
        kw = dict(num_correct_trials=5, measure_performance=False, verbose=False)
        if "backend" in params:  # a Triton ModelNew is loaded from a temporary file (eval's `uses_tempfile`)
            kw["backend"] = "triton" if re.search(r"^\s*(import triton|from triton)", new_src, re.M) else "cuda"
        if device == "cpu":
            out = {"own_pass": None, "own_detail": f"cpu: {layout} loaded; not run (it asserts CUDA)"}
        else:
            try:
                r = fn(ref_src, new_src, device=torch.device("cuda:0"), **kw)
                if r is None:  # earlier versions return None when the ModelNew does not compile or load
                    out = {"own_pass": False, "own_detail": "eval returned None (compile or load failed)"}
                else:
                    out = {"own_pass": bool(r.compiled and r.correctness),
                           "own_detail": {k: str(v)[:300] for k, v in (r.metadata or {}).items()}}
            except Exception as e:
                out = {"own_pass": False, "own_detail": f"{type(e).__name__}: {e}"[:300]}
        out["own_seconds"] = time.perf_counter() - t
        print(json.dumps(out), file=proto, flush=True)


# ---- fmh66 ------------------------------------------------------------------------------------------------------

def fmh66_dims(ref, kernel):
    """The demo's dims: setup()'s integer defaults in ref.py, overridden by the 'Dims' its author ran (the
    correctness.md beside the kernel); for CUDA only solve()'s integer parameters."""
    sys.path.insert(0, str(ROOT / "tools"))
    from kgo_harness.formats import cuda_contract, formats
    decl = formats.setup_declaration(ref.read_text()) or {"dims": []}
    values = dict(decl["dims"])
    md = kernel.parent / "correctness.md"
    if md.is_file():
        m = re.search(r"\*\*Dims\*\*\s*\|\s*(\{[^}]*\})", md.read_text())
        if m:
            values.update({k: int(v) for k, v in re.findall(r"'(\w+)':\s*(\d+)", m.group(1))})
    if kernel.suffix == ".cu":
        params = cuda_contract.parse_params(kernel.read_text())
        ints = [p.name for p in params if not p.pointer and not p.is_float_scalar]
        return {n: values[n] for n in ints if n in values}
    return values


def fmh66_author_tolerance(kernel):
    """The --atol/--rtol its author ran the checker with (the correctness.md beside the kernel: "**Tolerance** |
    atol=0.5  rtol=0.05" for a TF32 GEMM), else none (the checker's defaults)."""
    md = kernel.parent / "correctness.md"
    m = re.search(r"\*\*Tolerance\*\*\s*\|\s*atol=([0-9.eE+-]+)\s+rtol=([0-9.eE+-]+)", md.read_text()) \
        if md.is_file() else None
    return [f"--atol={m.group(1)}", f"--rtol={m.group(2)}"] if m else []


def fmh66_own(job, root, device, timeout):
    checker = next(iter(pathlib.Path(root).glob("skills/*/profiling/script/correctness_check.py")), None)
    if checker is None:
        return {"own_pass": None, "own_detail": "no skills/*/profiling/script/correctness_check.py", "own_seconds": 0}
    kernel = job["kernel_path"]
    cmd = [sys.executable, str(checker), kernel, f"--ref={job['ref_path']}", "--output-dir",
           str(pathlib.Path(job["work"]) / "fmh66-own")] + [f"--{k}={v}" for k, v in job["dims"].items()]
    cmd += fmh66_author_tolerance(pathlib.Path(kernel))
    if device == "cpu":
        return {"own_pass": None, "own_detail": f"cpu: not run (it sets a CUDA device): {' '.join(cmd[1:3])}",
                "own_seconds": 0}
    if kernel.endswith(".cu"):   # its checker loads <kernel>.so and says to compile it first, with this command
        import torch
        copy = pathlib.Path(job["work"]) / "fmh66-own" / "cu" / pathlib.Path(kernel).name
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(kernel, copy)
        major, minor = torch.cuda.get_device_capability()
        nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
        build = [nvcc, "-shared", "-std=c++17", f"-arch=sm_{major}{minor}", "-O3", "-Xcompiler", "-fPIC", "-o",
                 str(copy.with_suffix(".so")), str(copy)]
        made = subprocess.run(build, capture_output=True, text=True, timeout=timeout)
        if made.returncode != 0:
            return {"own_pass": False, "own_seconds": 0, "own_detail": f"nvcc failed: {made.stderr[-300:]}"}
        cmd[2] = str(copy)
    return _run_own(cmd, timeout, lambda p: p.returncode == 0)


def _run_own(cmd, timeout, passed, env=None, cwd=None):
    t = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd)
    except subprocess.TimeoutExpired:
        return {"own_pass": False, "own_detail": f"ran past {timeout:.0f} s", "own_seconds": time.perf_counter() - t}
    verdict = passed(p)
    return {"own_pass": verdict, "own_seconds": time.perf_counter() - t,
            "own_detail": (p.stdout[-200:] + " / " + p.stderr[-300:]).strip() if not verdict else p.stdout[-200:]}


# ---- SOL-ExecBench and tritonbench ---------------------------------------------------------------------------------

def solexec_jobs(args, work):
    """Every published solution_*.json beside a definition.json and workload.jsonl under DIR/examples."""
    jobs = []
    for sol in sorted(pathlib.Path(args.sol_execbench).glob("examples/*/*/solution*.json")):
        if (sol.parent / "definition.json").is_file() and (sol.parent / "workload.jsonl").is_file():
            jobs.append(dict(format="sol-execbench", problem=f"{sol.parent.parent.name}/{sol.parent.name}",
                             kernel=sol.name, what="published example solution", kernel_path=str(sol),
                             ref_path=str(sol.parent / "definition.json"), kgo_check=_cpu_workloads(args, sol.parent)))
    return jobs


def _cpu_workloads(args, problem):
    """On the CPU, kgo checks the two smallest workloads only (--shape: the var axes' values in definition order);
    on a GPU every workload, as SOL-ExecBench's own run does."""
    if args.device != "cpu":
        return []
    axes = json.loads((problem / "definition.json").read_text())["axes"]
    var = [n for n, a in axes.items() if a.get("type") == "var"]
    shapes = {"x".join(str(json.loads(line)["axes"][n]) for n in var)
              for line in (problem / "workload.jsonl").read_text().splitlines() if line.strip()}
    small = sorted(shapes, key=lambda s: math.prod(int(v) for v in s.split("x")))[:2]
    return [a for s in small for a in ("--shape", s)]


def solexec_own(job, root, device, timeout):
    if device == "cpu":
        return {"own_pass": None, "own_detail": "cpu: not run (its CLI evaluates on a GPU)", "own_seconds": 0}
    env = _site_env(root)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(pathlib.Path(root) / "src"), env.get("PYTHONPATH")]))
    cmd = [sys.executable, "-m", "sol_execbench.cli.main", str(pathlib.Path(job["kernel_path"]).parent),
           "--solution", job["kernel_path"], "--json"]
    row = _run_own(cmd, timeout, lambda p: p.returncode == 0, env=env)
    statuses = re.findall(r'"status":\s*"(\w+)"', row["own_detail"])
    if statuses:
        row["own_detail"] = f"trace statuses: {_tally(statuses)}; " + row["own_detail"][-200:]
    return row


def tritonbench_jobs(args, work):
    """The operators named in DIR/ops.txt, first `inputs` input sets: tritonbench's --input-id 0 --num-inputs N,
    kgo's --shape 1 .. --shape N."""
    root = pathlib.Path(args.tritonbench)
    names = (root / "ops.txt").read_text().split() if (root / "ops.txt").is_file() else []
    n = 2 if args.device == "cpu" else 16
    jobs = []
    for op in names:
        path = root / "tritonbench" / "operators" / op / "operator.py"
        if path.is_file():
            jobs.append(dict(format="tritonbench", problem=op, kernel=f"operators/{op}/operator.py", inputs=n,
                             what=f"published operator, first {n} input sets", kernel_path=str(path),
                             kgo_check=[a for k in range(1, n + 1) for a in ("--shape", str(k))]))
    return jobs


def tritonbench_own(job, root, device, timeout):
    result = pathlib.Path(job["work"]) / f"tb-{job['problem']}.json"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])))
    if device == "cpu":
        env["TRITON_INTERPRET"] = "1"  # tritonbench runs on the CPU only through Triton's interpreter
    cmd = [sys.executable, "run.py", "--op", job["problem"], "--metrics", "accuracy", "--input-id", "0",
           "--num-inputs", str(job["inputs"]), "--device", device, "--output-json", str(result)]

    def passed(p):
        values = json.loads(result.read_text()) if result.is_file() else {}
        acc = {k: v for k, v in values.items() if k.endswith("_accuracy") and "x_average" not in k}
        return p.returncode == 0 and bool(acc) and all(v == 1.0 for v in acc.values())
    row = _run_own(cmd, timeout, passed, env=env, cwd=str(root))
    if result.is_file():
        row["own_detail"] = result.read_text()[-300:]
    return row


def _tally(values):
    return ", ".join(f"{v} x{values.count(v)}" for v in sorted(set(values)))


class Servers:
    """Each format's own check for a job: own_pass (None where it was not run), own_seconds, own_detail."""

    def __init__(self, args, work):
        self.args, self.work, self.kb, self.kb_ready = args, work, None, None

    def own_check(self, job, timeout):
        job = dict(job, work=str(self.work))
        fmt, dev = job["format"], self.args.device
        if fmt == "kernelbench":
            return self._kernelbench(job, timeout)
        if fmt == "fmh66":
            return fmh66_own(job, self.args.fmh66, dev, timeout)
        if fmt == "sol-execbench":
            return solexec_own(job, self.args.sol_execbench, dev, timeout)
        if fmt == "tritonbench":
            return tritonbench_own(job, self.args.tritonbench, dev, timeout)
        return {"own_pass": None, "own_detail": "kgo's own example: no other harness", "own_seconds": 0}

    def _kernelbench(self, job, timeout):
        import select
        spawned = time.perf_counter()
        if getattr(self.args, "own_cold", False):
            self.close()   # a fresh process per problem, as KernelBench's single-problem scripts run
            self.kb = None
        if self.kb is None or self.kb.poll() is not None:
            self.kb = subprocess.Popen([sys.executable, __file__, "kb-serve", str(self.args.kernelbench),
                                        self.args.device], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       text=True, env=_site_env(self.args.kernelbench), cwd=str(self.work))
            line = self.kb.stdout.readline()
            if not line:
                return {"own_pass": False, "own_seconds": 0, "own_detail": "KernelBench's eval did not load"}
            self.kb_ready = json.loads(line)
            print(f"KernelBench: {self.kb_ready}", flush=True)
        self.kb.stdin.write(json.dumps([job["ref_path"], job["kernel_path"]]) + "\n")
        self.kb.stdin.flush()
        if not select.select([self.kb.stdout], [], [], timeout)[0]:
            self.kb.kill()
            return {"own_pass": False, "own_seconds": timeout, "own_detail": f"ran past {timeout:.0f} s"}
        line = self.kb.stdout.readline()
        if not line:
            return {"own_pass": False, "own_seconds": 0, "own_detail": "KernelBench's process died on this kernel"}
        got = json.loads(line)
        if getattr(self.args, "own_cold", False):
            got["own_process_seconds"] = time.perf_counter() - spawned   # its start, import and load included
        return got

    def close(self):
        if self.kb is not None and self.kb.poll() is None:
            self.kb.stdin.close()
            self.kb.wait(timeout=60)


if __name__ == "__main__" and sys.argv[1:2] == ["kb-serve"]:
    kb_serve(sys.argv[2], sys.argv[3])
