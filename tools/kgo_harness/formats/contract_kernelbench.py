"""KernelBench: the problem file (`Model`, `get_inputs()`, `get_init_inputs()`) is the reference and the
kernel file's `ModelNew` (Triton, or CUDA through load_inline) is the kernel. Both models are built from the
same seed so their weights are identical; inputs come from `get_inputs()` under a fresh seed per case (on the
problem's device: `torch.rand(...)` there, which the judge ships to the kernel's process), and
later trials also scale them (a problem whose reference turns non-finite on that keeps the plain inputs).
The problem's module-level integers are its named dims: a case shape sets them, in file order."""
import ast
import copy
import re

import torch

from kgo_harness import tolerance
from kgo_harness.formats import contracts as C
from kgo_harness.formats import formats, ops, stress
from kgo_harness.formats.kernelbench_catalog import catalog_call, module_misfit, op_shape

WEIGHT_SEED = 42
CUSTOM = ("custom: this problem is not in kgo's op catalog ({why}); give --flops EXPR --bytes EXPR to "
          "kgo roofline")


def detect(kernel_text, ref_path, ref_text):
    return bool(re.search(r"^class\s+ModelNew\b", kernel_text, re.M)) or (
        bool(re.search(r"^class\s+Model\b", ref_text, re.M)) and "def get_inputs" in ref_text)


def _int_globals(source):
    """Module-level `NAME = <int>` assignments, in file order; the int may be constant arithmetic, as in
    KernelBench's matmul problems (`N = 2048 * 2`)."""
    out = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = _int_constant(node.value)
            if value is not None:
                out.append((node.targets[0].id, value))
    return out


_INT_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
            ast.FloorDiv: lambda a, b: a // b if b else None, ast.Pow: lambda a, b: a ** b if 0 <= b <= 64 else None,
            ast.LShift: lambda a, b: a << b if 0 <= b <= 64 else None}


def _int_constant(node):
    """The value of an integer literal or of +, -, *, //, ** and << over them; else None."""
    if isinstance(node, ast.Constant):
        return node.value if type(node.value) is int else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _int_constant(node.operand)
        return None if v is None else -v
    if isinstance(node, ast.BinOp) and type(node.op) in _INT_OPS:
        a, b = _int_constant(node.left), _int_constant(node.right)
        return None if a is None or b is None else _INT_OPS[type(node.op)](a, b)
    return None


# KernelBench's own check: torch.allclose(atol=rtol=t) with t by precision (get_tolerance_for_precision in
# ScalingIntelligence/KernelBench src/kernelbench/eval.py, after torchbench): fp32 1e-4, fp16 and bf16 1e-2.
PRECISION_TOLERANCE = {"float32": 1e-4, "float16": 1e-2, "bfloat16": 1e-2}


def stated_tolerance(problem):
    t = PRECISION_TOLERANCE.get(str(problem.dtype).replace("torch.", ""))
    if t is None:
        return None
    return {"atol": t, "rtol": t}, "KernelBench's eval_kernel_against_ref (get_tolerance_for_precision)"


def roofline(problem):
    """What kgo's roofline counts for this problem: the catalog op and each checked shape's catalog shape, or
    the custom message."""
    found = getattr(problem, "catalog", None)
    if not found or not found.get("op"):
        return {"op": None, "shapes": [], "message": CUSTOM.format(why=(found or {}).get("why", "not mapped"))}
    edges = getattr(problem, "edge_set", set())
    shapes = [{"shape": list(k), "op_shape": v} for k, v in found["shapes"].items() if k not in edges]
    if any(s["op_shape"] is None for s in shapes):
        return {"op": None, "shapes": [], "message": CUSTOM.format(why="its inputs do not fit the catalog op")}
    return {"op": found["op"], "shapes": shapes, "message": None}


def load(problem):
    """Reference role: the problem file (Model, inputs, init inputs, dims); kernel role: the kernel file's
    ModelNew only, built from the init inputs and fed the inputs the judge ships (inputs_from "judge")."""
    problem.inputs_from = "judge"
    problem.models = {}
    if not problem.req.get("reference"):
        raise C.LoadError("the KernelBench contract needs the problem file (Model, get_inputs, "
                          "get_init_inputs) as the reference: pass --reference problem.py")
    text = problem.kernel_path.read_text(errors="replace")
    if problem.device == "cpu" and re.search(r"load_inline|cpp_extension", text) and \
            re.search(r"cuda_sources|__global__|\.cu['\"]", text):   # a C++-only extension runs on the CPU
        raise C.LoadError("ModelNew compiles CUDA with load_inline, which needs a GPU and nvcc; run on a GPU",
                          culprit="environment", needs_gpu=True)
    if problem.role == "kernel":
        problem.module = C.import_file(problem.kernel_path, problem.sha)
        if not hasattr(problem.module, "ModelNew"):
            raise C.LoadError(f"{problem.kernel_path.name} defines no ModelNew class; a KernelBench kernel is "
                              "`class ModelNew(nn.Module)` built with the problem's init inputs", culprit="kernel")
        return
    ref_path = problem.req["reference"]
    problem.ref_module = C.import_file(ref_path, C.sha256_file(ref_path))
    for name in ("Model", "get_inputs", "get_init_inputs"):
        if not hasattr(problem.ref_module, name):
            raise C.LoadError(f"the problem file lacks {name}; a KernelBench problem defines Model, get_inputs "
                              "and get_init_inputs", culprit="reference")
    ref_text = open(ref_path, errors="replace").read()
    dims = _int_globals(ref_text)
    problem.dim_names = [n for n, _ in dims]
    problem.dim_defaults = [v for _, v in dims]
    problem.dims_owner = "the problem file"
    call, why = catalog_call(ref_text)
    problem.catalog = ({"op": call[0], "rule": call[1], "dim": call[2], "module": call[3], "shapes": {}} if call
                       else {"why": why})
    problem.op = problem.op or (ops.lookup(call[0]) if call else None)


def edge_shapes(problem, shapes):
    out = formats.edge_shapes(problem, shapes)
    problem.edge_set = {tuple(s) for s in out} - {tuple(s) for s in shapes}   # not the roofline's sizes
    return out


def _cast(value, dtype, device):
    if isinstance(value, torch.Tensor):
        value = value.to(device)
        return value.to(dtype) if value.dtype.is_floating_point else value
    return value


def _models(problem, dims):
    """The judge's Model (the kernel's dtype) and its float64 copy for these dims, and the init inputs."""
    key = tuple(dims.values())
    if key not in problem.models:
        mod = problem.ref_module
        for name, value in dims.items():
            setattr(mod, name, value)
        try:
            init = list(mod.get_init_inputs())
            C.seed_all(WEIGHT_SEED)
            model = mod.Model(*init)
        except Exception as e:
            raise C.LoadError(f"the problem's Model(*get_init_inputs()) raised {type(e).__name__}: {e}",
                              culprit="reference") from e
        model64 = copy.deepcopy(model).to(problem.device, torch.float64)
        model = model.to(problem.device, problem.dtype)
        problem.models[key] = (model, model64, init)
    return problem.models[key]


def _model_new(problem, init):
    """The kernel's ModelNew built from the init inputs after the same seed as Model (equal weights)."""
    key = repr(init)
    if key not in problem.models:
        try:
            C.seed_all(WEIGHT_SEED)
            new = problem.module.ModelNew(*init)
        except Exception as e:
            raise C.LoadError(f"ModelNew(*get_init_inputs()) raised {type(e).__name__}: {e}",
                              culprit="kernel") from e
        problem.models[key] = new.to(problem.device, problem.dtype)
    return problem.models[key]


def _shippable(v):
    """A get_init_inputs() value the judge can send as JSON: KernelBench's asymmetric convolutions pass tuples
    (kernel_size = (5, 7)), normalisations lists of ints."""
    if isinstance(v, (tuple, list)):
        return all(_shippable(x) for x in v)
    return v is None or isinstance(v, (bool, int, float, str))


def _to_wire(v):
    """JSON has no tuples: a tuple travels tagged, so the kernel's process builds ModelNew with what Model got."""
    if isinstance(v, tuple):
        return {"tuple": [_to_wire(x) for x in v]}
    return [_to_wire(x) for x in v] if isinstance(v, list) else v


def _from_wire(v):
    if isinstance(v, dict):
        return tuple(_from_wire(x) for x in v["tuple"])
    return [_from_wire(x) for x in v] if isinstance(v, list) else v


class KernelBenchCase(C.ArgsCase):
    def __init__(self, problem, shape, seed, trial):
        got = self.start(problem, shape, seed, trial)
        if got is not None:
            self.new = _model_new(problem, [_from_wire(v) for v in got["extra"].get("init", [])])
            return
        dims = formats.dims_for(problem, shape)
        self.model, self.model64, self.init = _models(problem, dims)
        for name, value in dims.items():
            setattr(problem.ref_module, name, value)
        C.seed_all(seed)
        try:
            # Made where they are used: a problem's torch.rand of GiBs on the CPU, then copied over, costs
            # seconds a case. The judge makes and ships the inputs, so its generator alone decides them.
            with torch.device(problem.device):
                raw = list(problem.ref_module.get_inputs())
        except Exception as e:
            raise C.LoadError(f"the problem's get_inputs() raised {type(e).__name__}: {e}",
                              culprit="reference") from e
        self.args = [_cast(a, problem.dtype, problem.device) for a in raw]
        if problem.catalog.get("op"):
            self._map(problem.catalog)
        self.scaled = stress.scaled(trial)
        self.stress = stress.KERNELBENCH_TEXT if self.scaled else None
        if self.scaled:
            self.args = stress.scale(self.args)

    def _map(self, found):
        """Records this case's catalog shape, or turns the mapping custom when the module's settings misfit."""
        module = getattr(self.model, found["module"], None) if found["module"] else None
        why = module_misfit(module, found["op"]) if found["module"] else None
        if why:
            found.clear()
            found["why"] = why
            return
        found["shapes"][tuple(self.shape)] = op_shape(found["op"], found["rule"], found["dim"], self.args,
                                                      self.model, module)

    def provided_extra(self):
        if not all(_shippable(v) for v in self.init):
            raise C.LoadError("get_init_inputs() returns values other than numbers, strings, None and tuples or "
                              "lists of them; kgo ships only those to the kernel's process", culprit="contract")
        return {"init": [_to_wire(v) for v in self.init]}

    def run(self):
        return C.as_list(self.new(*self.args))

    def _reference(self):
        dtype = str(self.p.dtype).replace("torch.", "")
        if tolerance.ieee_float32_reference(self.p.tolerance(self), dtype):
            self.p.reference_dtype = "float32 (IEEE: TF32 off)"
            with C.tf32(False):
                return self._model_in_its_dtype()
        try:
            with torch.no_grad():
                return C.as_list(self.model64(*[C.upcast(a) for a in self.args]))
        except (RuntimeError, TypeError, NotImplementedError):
            self.p.reference_dtype = dtype
            return self._model_in_its_dtype()

    def _model_in_its_dtype(self):
        """The judge's Model in the problem's dtype, on copies of the case's inputs."""
        with torch.no_grad():
            return C.as_list(self.model(*[a.clone() if isinstance(a, torch.Tensor) else a for a in self.args]))

    def reference64(self):
        if self._ref is None:
            ref = self._reference()
            if self.scaled and not all(torch.isfinite(r).all() for r in ref if isinstance(r, torch.Tensor)):
                # The problem's domain does not allow scaled inputs: keep get_inputs()'s own values.
                self.args = stress.unscale(self.args)
                self.scaled, self.stress = False, None
                ref = self._reference()
            self._ref = ref
            self.output_names = ["out"] if len(ref) == 1 else [f"out{i}" for i in range(len(ref))]
        return self._ref

    def expected_dtypes(self):
        return [self.p.dtype if r.dtype.is_floating_point else r.dtype for r in self.reference64()]

    def eager(self):
        model, args = self.model, self.args
        return lambda: C.as_list(model(*args))

    def eager_callable(self):
        return self.model, self.args, {}

    def work(self):
        """(bytes, flops): bytes of the inputs and outputs; FLOPs are counted only by kgo's op catalog
        (roofline/catalog.cpp), so None here."""
        ins = [a for a in self.args if isinstance(a, torch.Tensor)]
        total = sum(a.numel() * a.element_size() for a in ins)
        total += sum(r.numel() * self.p.dtype.itemsize for r in self.reference64())
        return total, None


Case = KernelBenchCase  # the case formats.case builds
