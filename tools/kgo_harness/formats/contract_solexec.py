"""SOL-ExecBench / flashinfer-trace: `definition.json` (axes, inputs, outputs, the reference code's `run`),
`workload.jsonl` beside it (one set of var-axis values per line, with input sources and an optional
`tolerance`), and a solution entry in kernel.py called positionally: destination-passing
(`entry(*inputs, *outputs)`) when it takes the outputs too, else returning them. A case shape is the var
axes' values in definition order."""
import json
import pathlib
import types

import torch

from kgo_harness.formats import contracts as C
from kgo_harness.formats import formats, ops, stress


# A workload without `tolerance` is judged by SOL-ExecBench's default ToleranceSpec (NVIDIA/SOL-ExecBench,
# src/sol_execbench/core/data/workload.py): max_atol = max_rtol = 1e-2 (and 99% of elements within them; kgo asks all).
DEFAULT_TOLERANCE = {"atol": 1e-2, "rtol": 1e-2}


def solution_document(text):
    """The parsed SOL-ExecBench solution (a JSON document carrying its sources: `spec.entry_point`
    "file::function", `spec.language`, `spec.destination_passing_style`, `sources` [{path, content}]), or None."""
    try:
        d = json.loads(text)
    except ValueError:
        return None
    ok = isinstance(d, dict) and isinstance(d.get("sources"), list) and isinstance(d.get("spec"), dict)
    return d if ok else None


def detect(kernel_text, ref_path, ref_text):
    if kernel_text.lstrip().startswith("{") and solution_document(kernel_text) is not None:
        return True
    if not ref_path or not str(ref_path).endswith(".json"):
        return False
    try:
        d = json.loads(ref_text)
    except ValueError:
        return False
    return isinstance(d, dict) and all(k in d for k in ("axes", "inputs", "outputs", "reference"))


def _err(msg, culprit="contract"):
    return C.LoadError(msg, culprit=culprit)


def _workloads(path):
    wl = path.parent / "workload.jsonl"
    if not wl.is_file():
        return []
    out = []
    for n, line in enumerate(wl.read_text().splitlines(), 1):
        if line.strip():
            try:
                item = json.loads(line)
            except ValueError as e:
                raise _err(f"{wl.name} line {n} is not JSON: {e}")
            out.append(item.get("workload", item))
    return out


def load(problem):
    """Reference role: the definition's reference code, inputs (custom_inputs_entrypoint included) and
    workloads; kernel role: the kernel file's entry only, fed the inputs the judge ships and output buffers of
    the shapes it names (inputs_from "judge"). The definition's JSON is data to both."""
    if not problem.req.get("reference"):
        doc = solution_document(problem.kernel_path.read_text(errors="replace")) or {}
        named = f" (the solution names definition '{doc['definition']}')" if doc.get("definition") else ""
        raise _err("the SOL-ExecBench contract needs the definition (axes, inputs, outputs, reference) as the "
                   f"reference: pass --reference definition.json{named}")
    problem.inputs_from = "judge"
    path = pathlib.Path(problem.req["reference"])
    d = json.loads(path.read_text())
    problem.definition = d
    names_in, names_out = list(d["inputs"]), list(d["outputs"])
    if problem.role == "kernel":
        _load_kernel(problem, names_in, names_out)
        return
    problem.entry, problem.dps = problem.kernel_info.get("entry"), problem.kernel_info.get("dps")
    ref = types.ModuleType(f"kgo_definition_{d.get('name', 'ref')}")
    try:
        exec(compile(d["reference"], f"{path.name}:reference", "exec"), ref.__dict__)
    except Exception as e:
        raise _err(f"{path.name}'s reference code raised {type(e).__name__}: {e}", "reference") from e
    if not callable(ref.__dict__.get("run")):
        raise _err(f"{path.name}'s reference code defines no run(...)", "reference")
    problem.ref_module = ref
    axes = d["axes"]
    problem.dim_names = [k for k, a in axes.items() if a.get("type") == "var"]
    problem.workloads = _workloads(path)
    by_shape = {}
    for w in problem.workloads:
        missing = [k for k in problem.dim_names if k not in w.get("axes", {})]
        if missing:
            raise _err(f"workload {w.get('uuid')} gives no value for the var axes {', '.join(missing)}")
        by_shape[tuple(w["axes"][k] for k in problem.dim_names)] = w
    problem.workload_by_shape = by_shape
    problem.dim_defaults = list(next(iter(by_shape), [1] * len(problem.dim_names)))
    problem.dims_owner = f"{path.name} (var axes)"
    problem.op = problem.op or ops.lookup(d.get("op_type") or "")


def _extract(problem, doc):
    """Writes the solution's sources under the cache, in a folder named by the document's hash (never over
    another solution's), and returns (entry file, function name) from spec.entry_point."""
    from kgo_harness.protocol import cache_dir
    entry = str(doc["spec"].get("entry_point") or "")
    if "::" not in entry:
        raise _err(f"{problem.kernel_path.name}: spec.entry_point '{entry}' is not 'file::function'", "kernel")
    file_name, fn = entry.split("::", 1)
    root = cache_dir(problem.req) / "sol-solutions" / problem.sha[:24]
    for src in doc["sources"]:
        rel = pathlib.PurePosixPath(str(src.get("path", "")))
        if rel.is_absolute() or ".." in rel.parts or not rel.parts:
            raise _err(f"{problem.kernel_path.name}: source path '{rel}' leaves the solution's folder", "kernel")
        target = root.joinpath(*rel.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.is_file() or target.read_text(errors="replace") != src.get("content", ""):
            tmp = target.with_name(target.name + ".tmp")
            tmp.write_text(src.get("content", ""))
            tmp.replace(target)
    path = root.joinpath(*pathlib.PurePosixPath(file_name).parts)
    if not path.is_file():
        raise _err(f"{problem.kernel_path.name}: spec.entry_point names {file_name}, which is not among its "
                   "sources", "kernel")
    return path, fn


def _load_solution(problem, doc):
    """The solution document's entry: a Python/Triton file imported from its extracted sources, or a C++/CUDA
    one built with torch.utils.cpp_extension.load (binding "torch")."""
    path, fn = _extract(problem, doc)
    language = str(doc["spec"].get("language", "python")).lower()
    if language in ("python", "triton", "pytorch", "cute_dsl", "cutile"):
        return C.import_file(path, C.sha256_file(path)), fn
    if problem.device != "cuda" and language == "cuda":
        raise C.LoadError(f"the solution is CUDA ({path.name}); it needs a GPU and nvcc", culprit="environment",
                          needs_gpu=True)
    from kgo_harness import launches
    launches.watch_source("cpp_extension")
    from torch.utils import cpp_extension
    sources = [str(path.parent / s["path"]) for s in doc["sources"]
               if str(s["path"]).endswith((".cu", ".cpp", ".cc", ".cxx"))]
    opts = doc["spec"].get("compile_options") or {}
    try:
        module = cpp_extension.load(name=f"kgo_sol_{problem.sha[:16]}", sources=sources,
                                    extra_cflags=opts.get("cflags") or [], extra_cuda_cflags=opts.get("cuda_cflags")
                                    or [], extra_ldflags=opts.get("ld_flags") or [])
    except Exception as e:
        raise C.LoadError(f"building the solution's sources failed: {type(e).__name__}: {e}"[:3000],
                          culprit="kernel") from e
    return module, fn


def _load_kernel(problem, names_in, names_out):
    import inspect
    text = problem.kernel_path.read_text(errors="replace")
    # By content: kgo init keeps a solution document as the workspace's kernel.py.
    doc = solution_document(text) if text.lstrip().startswith("{") else None
    if doc is not None:
        problem.module, entry = _load_solution(problem, doc)
        problem.entry = problem.req.get("entry") or entry
        fn = getattr(problem.module, problem.entry, None)
        if not callable(fn):
            raise _err(f"the solution's sources define no function '{problem.entry}' (spec.entry_point)", "kernel")
        problem.fn = fn
        problem.dps = bool(doc["spec"].get("destination_passing_style", True))
        problem.facts = {"dps": problem.dps}
        return
    problem.module = C.import_file(problem.kernel_path, problem.sha)
    problem.entry = problem.req.get("entry") or _find_entry(problem.module, names_in, problem.kernel_path)
    fn = getattr(problem.module, problem.entry, None)
    if not callable(fn):
        raise _err(f"{problem.kernel_path.name} defines no function '{problem.entry}'; pass --entry NAME")
    problem.fn = fn
    n = len([p for p in inspect.signature(fn).parameters.values()
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)])
    if n == len(names_in) + len(names_out):
        problem.dps = True
    elif n == len(names_in):
        problem.dps = False
    else:
        raise _err(f"{problem.entry}() takes {n} positional parameters; the definition has inputs "
                   f"({', '.join(names_in)}) and outputs ({', '.join(names_out)}), so it must take "
                   f"{len(names_in)} (returning the outputs) or {len(names_in) + len(names_out)} "
                   "(destination-passing: the outputs last)", "kernel")
    problem.facts = {"dps": problem.dps}


def _find_entry(module, names_in, kernel_path):
    """`run` if defined, else the one public function whose leading parameters are the definition's inputs."""
    import inspect
    if callable(getattr(module, "run", None)):
        return "run"
    fits = []
    for name, fn in vars(module).items():
        if inspect.isfunction(fn) and not name.startswith("_") and fn.__module__ == module.__name__:
            params = list(inspect.signature(fn).parameters)
            if params[:len(names_in)] == names_in:
                fits.append(name)
    if len(fits) != 1:
        raise _err(f"{kernel_path.name}: cannot tell the entry point (functions taking "
                   f"{', '.join(names_in)}: {', '.join(fits) or 'none'}); pass --entry NAME")
    return fits[0]


def default_shapes(problem):
    given = problem.req.get("shapes") and problem.req.get("shapes_given", True)
    if not given and not problem.workload_by_shape:
        raise _err("no workload.jsonl beside the definition and no --shape: give the var axes "
                   f"({', '.join(problem.dim_names)}) with --shape or --dim")
    if given or problem.req.get("dims"):
        return formats.shapes_from_request(problem)
    return [list(s) for s in problem.workload_by_shape]


def _axes_values(problem, dims):
    values = dict(dims)
    for name, a in problem.definition["axes"].items():
        if a.get("type") == "const":
            values[name] = a["value"]
    for _ in range(len(values) + 2):
        for name, a in problem.definition["axes"].items():
            if a.get("type") == "expr" and name not in values:
                try:
                    values[name] = int(eval(a["expression"], {"__builtins__": {}}, values))
                except NameError:
                    pass
    return values


def _dtype(name):
    return C.torch_dtype(name)


class SolCase:
    def __init__(self, problem, shape, seed, trial=0):
        self.p = problem
        self.shape = list(shape)
        d = problem.definition
        self.output_names = list(d["outputs"])
        self._ref = None
        if problem.role == "kernel":
            got = problem.take_provided(shape, seed, trial)
            self.args = list(got["args"])
            self.outputs = [torch.empty(sh, dtype=_dtype(dt), device=problem.device)
                            for sh, dt in got["extra"].get("outputs", [])]
            return
        dims = formats.dims_for(problem, shape)
        axes = _axes_values(problem, dims)
        work = problem.workload_by_shape.get(tuple(shape)) or {}
        specs = work.get("inputs", {})
        stated = {k.replace("max_", ""): float(v) for k, v in (work.get("tolerance") or {}).items()
                  if k.replace("max_", "") in ("atol", "rtol")}
        self.tolerance_override = {**DEFAULT_TOLERANCE, **stated}
        self.tolerance_where = (f"workload {work.get('uuid', '?')}'s tolerance (workload.jsonl)" if stated else
                                "SOL-ExecBench's default workload tolerance (max_atol = max_rtol = 1e-2)")
        scalars = {n: s["value"] for n, s in specs.items() if s.get("type") == "scalar"}
        for w in problem.workloads:  # an edge shape borrows the scalars of the first workload
            for n, s in w.get("inputs", {}).items():
                if s.get("type") == "scalar":
                    scalars.setdefault(n, s["value"])
        gen = torch.Generator(device=problem.device)
        gen.manual_seed(seed)
        C.seed_all(seed)
        custom = d.get("custom_inputs_entrypoint")
        made = {}
        if custom and any(s.get("type") == "custom" for s in specs.values()) or (custom and not specs):
            try:
                made = problem.ref_module.__dict__[custom]({**axes, **scalars}, torch.device(problem.device))
            except Exception as e:
                raise _err(f"the definition's {custom}() raised {type(e).__name__}: {e}", "reference") from e
        self.args = []
        for name, spec in d["inputs"].items():
            if name in made:
                self.args.append(made[name])
            elif spec.get("shape") is None:
                if name not in scalars:
                    raise _err(f"scalar input '{name}' has no value: give it in workload.jsonl or --arg")
                self.args.append(problem.args.get(name, scalars[name]))
            else:
                try:
                    sh = [axes[a] if isinstance(a, str) else int(a) for a in spec["shape"]]
                except KeyError as e:
                    raise _err(f"input '{name}' uses axis {e} that has no value") from e
                self.args.append(ops.randn(sh, _dtype(spec.get("dtype", "float32")), gen, problem.device))
        self.outputs = []
        for name, spec in d["outputs"].items():
            sh = [axes[a] if isinstance(a, str) else int(a) for a in spec["shape"]]
            self.outputs.append(torch.empty(sh, dtype=_dtype(spec.get("dtype", "float32")), device=problem.device))
        self.output_names = list(d["outputs"])
        self._ref = None
        # Later trials stress the random inputs (stress.py); custom and scalar inputs keep the problem's domain.
        drawn = {n: a for n, a in zip(d["inputs"], self.args) if n not in made and d["inputs"][n].get("shape")}
        stressed, self.stress = stress.named(drawn, (), trial, seed)
        self.plain, self.trial = None, trial
        if stressed is not None:
            self.plain = list(self.args)
            self.args = [stressed.get(n, a) for n, a in zip(d["inputs"], self.args)]

    def _unstress(self, why):
        self.p.notes.append(f"shape {self.shape} trial {self.trial}: {why} on stressed inputs ({self.stress}); "
                            "the case uses the workload's own inputs")
        self.args, self.plain, self.stress = self.plain, None, None

    def provided_extra(self):
        return {"outputs": [[list(t.shape), str(t.dtype).replace("torch.", "")] for t in self.outputs]}

    def input_tensors(self):
        return {n: a for n, a in zip(self.p.definition["inputs"], self.args) if isinstance(a, torch.Tensor)}

    def output_buffers(self):
        return self.outputs if self.p.dps else []

    def poison_outputs(self):
        for t in self.output_buffers():
            C.poison(t)

    def run(self):
        if self.p.dps:
            self.p.fn(*self.args, *self.outputs)
            return list(self.outputs)
        return C.as_list(self.p.fn(*self.args), self.output_names)

    def reference64(self):
        if self._ref is None:
            dtype = next((t.dtype for t in self.outputs if t.dtype.is_floating_point), torch.float32)
            self._ref = stress.settled_reference(self._reference, dtype, self.plain is not None, self._unstress)
        return self._ref

    def _reference(self):
        run = self.p.ref_module.run
        try:
            return C.as_list(run(*[C.upcast(a) for a in self.args]), self.output_names)
        except (RuntimeError, TypeError, NotImplementedError):
            self.p.reference_dtype = "input dtypes"
            return C.as_list(run(*[a.clone() if isinstance(a, torch.Tensor) else a for a in self.args]),
                             self.output_names)

    def expected_dtypes(self):
        return [t.dtype for t in self.outputs]

    def eager(self):
        run, args = self.p.ref_module.run, self.args
        return lambda: C.as_list(run(*args))

    def eager_callable(self):
        return self.p.ref_module.run, self.args, {}

    def work(self):
        total = sum(a.numel() * a.element_size() for a in self.args if isinstance(a, torch.Tensor))
        total += sum(t.numel() * t.element_size() for t in self.outputs)
        return total, None


Case = SolCase  # the case formats.case builds
