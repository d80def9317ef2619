"""The three kernel contracts (seed, op, cuda) behind one interface: a Problem loads the kernel once and
makes Cases (one input set each) that can run the kernel, its float64 reference and its eager baseline."""
import contextlib
import hashlib
import importlib.util
import inspect
import math
import os
import pathlib
import sys

import torch

from kgo_harness.formats import cpu_honesty, cuda_contract, interpret, ops
from kgo_harness.formats import problem_file, stress
from kgo_harness.protocol import parse_value


CULPRITS = ("setup", "import", "reference", "kernel", "contract", "environment")


class BaselineError(Exception):
    """A reference that runs in another process (a baseline in the kernel's own file) refused these inputs."""


class LoadError(Exception):
    """The kernel or reference cannot be used; the message names the fix (verdict FAIL). `culprit` says whose
    fault it is: setup, import, reference, kernel, contract (the files do not fit the contract kgo used) or
    environment (this machine cannot run it; `needs_gpu` when a GPU would)."""

    def __init__(self, message, culprit="contract", needs_gpu=False):
        super().__init__(message)
        self.culprit = culprit
        self.needs_gpu = needs_gpu


def sha256_file(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def seed_all(seed):
    """torch.manual_seed for the generators kgo uses (CPU and CUDA): torch's own also queues a seeding, with a
    formatted stack, for each backend never initialised here (xpu, mtia): 0.17 ms a call on the H200 against
    0.016 ms (bench/gpu_probes.py judge-costs), and that queue grows for as long as a warm harness lives."""
    seed = int(seed)
    torch.random.default_generator.manual_seed(seed)
    if torch.cuda.is_initialized() or torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)


def torch_dtype(name):
    dt = getattr(torch, name, None)
    if not isinstance(dt, torch.dtype):
        raise LoadError(f"unknown dtype '{name}'; use a torch dtype name such as float32, bfloat16, float16")
    return dt


_modules = {}


def import_file(path, sha):
    """Imports a Python file once per content hash (the warm worker keeps it)."""
    key = (str(path), sha)
    if key in _modules:
        return _modules[key]
    path = pathlib.Path(path)
    directory = str(path.parent)
    if directory not in sys.path:
        sys.path.insert(0, directory)
    name = f"kgo_{path.stem}_{sha[:16]}"
    from kgo_harness import launches
    launches.watch_source(path.read_text(errors="replace"))   # kernels the file compiles count as its own
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        del sys.modules[name]
        raise LoadError(f"importing {path.name} failed: {type(e).__name__}: {e}", culprit="import") from e
    _modules[key] = module
    return module


def _is_float(t):
    return isinstance(t, torch.Tensor) and t.dtype.is_floating_point


@contextlib.contextmanager
def tf32(allowed):
    """torch's matmuls and cuDNN's convolutions on TF32 tensor cores (allowed) or in IEEE fp32, restored after."""
    cuda = torch.backends.cuda.matmul
    before = cuda.allow_tf32, torch.backends.cudnn.allow_tf32
    cuda.allow_tf32 = torch.backends.cudnn.allow_tf32 = allowed
    try:
        yield
    finally:
        cuda.allow_tf32, torch.backends.cudnn.allow_tf32 = before


def upcast(value):
    if _is_float(value):
        return value.detach().to(torch.float64).clone()
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    return value


def poison(t):
    """Fills a buffer with NaN (floats) or the largest integer, so unwritten elements are visible."""
    if t.dtype.is_floating_point:
        t.fill_(float("nan"))
    elif t.dtype == torch.bool:
        t.fill_(True)
    else:
        t.fill_(torch.iinfo(t.dtype).max)


def as_list(value, names=None):
    if value is None:
        return None
    if isinstance(value, dict):
        return [value[n] for n in names] if names else list(value.values())
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def problem_setup(path, sha):
    """The problem file's setup() (problem_file.py); a file that cannot give one is the setup's fault."""
    try:
        return problem_file.setup_of(path, sha)
    except problem_file.ProblemFileError as e:
        raise LoadError(str(e), culprit="setup") from e


def tolerance_overrides(module):
    """ATOL/RTOL/MAX_REL_ERR set at ref.py's module level (upper or lower case)."""
    found = {}
    for key in ("atol", "rtol", "max_rel_err"):
        for name in (key.upper(), key):
            if module is not None and isinstance(getattr(module, name, None), (int, float)):
                found[key] = float(getattr(module, name))
                break
    return found


class Problem:
    """role "kernel": the kernel's process (imports the kernel, never ref.py); role "reference": the judge's
    (ref.py and the op table, never the kernel's code: kernel facts such as `fn_params` come from the kernel
    process through `kernel_info`); role "baseline" (formats whose reference lives in the kernel's own file):
    a second process that imports that file and runs only its reference (`run_entry`).
    `inputs_from` says where a case's inputs are made: "both" (the same bytes from the seed on each side),
    "kernel" (the kernel file's code makes them: shipped to the judge) or "judge" (the reference's code makes
    them: shipped to the kernel process before it builds the case, into `provided`)."""

    def __init__(self, req, role, kernel_info=None):
        self.req = req
        self.role = role
        self.kernel_info = kernel_info or {}
        self.inputs_from = "both"
        self.provided = {}
        self.notes = []   # the judge's warnings about the inputs (stress fallbacks, who made them)
        # A per-request secret of the judge mixed into the seeds of the inputs it makes from a problem file: the
        # kernel's process, which knows the request's seeds, cannot make the same inputs ahead and keep answers.
        self.salt = int.from_bytes(os.urandom(4), "little") if role == "reference" else 0
        self.device = req["device"]
        self.kernel_path = pathlib.Path(req["kernel"])
        self.sha = sha256_file(self.kernel_path)
        self.dtype = torch_dtype(req["dtype"])
        self.args = {k: parse_value(v) for k, v in req["args"].items()}
        self.op = ops.lookup(req.get("op"))
        if req.get("op") and self.op is None:
            raise LoadError(f"op '{req['op']}' is not in the harness's op catalog ({', '.join(ops.names())}); "
                            "use the seed contract (setup/run_kernel + ref.py) for other ops")
        self.ref_module = None
        self.reference_dtype = "float64"
        self.compile_s = 0.0
        from kgo_harness.formats import formats  # its adapters build on this module's cases
        self.contract = self._resolve_contract(req["contract"], formats)
        self.entry = None
        self.adapter = formats.ADAPTERS.get(self.contract)
        if self.device == "cpu":
            cpu_honesty.install()
            interpret.install()
        self.module = None
        if self.adapter is not None:
            self.adapter.load(self)  # each adapter loads only its role's side (formats.py)
            return
        if self.contract == "seed":
            # The judge makes the inputs with the problem's setup() (problem_file.py); without a problem file
            # in the request (no workspace), the kernel file's own setup() makes them in its process.
            self.inputs_from = "judge" if req.get("problem") else "kernel"
        if role == "reference":
            if req.get("reference"):
                self.ref_module = import_file(req["reference"], sha256_file(req["reference"]))
            self._load_reference(kernel_info or {})
        elif self.contract == "cuda":
            self._load_cuda()
        else:
            self.module = import_file(self.kernel_path, self.sha)
            if self.contract == "op":
                self._load_op()
            else:
                self._load_seed()

    def _load_reference(self, info):
        if self.contract == "op":
            if self.op is None:
                raise LoadError("op mode needs the op name (--op, e.g. softmax) to make inputs and pick the torch "
                                f"reference; catalog: {', '.join(ops.names())}")
            self.entry = self.req.get("entry") or self.op.entry
            self.fn_params = info.get("fn_params")
            self.ref_fn = self._ref_function() if self.ref_module is not None else self.op.reference
        elif self.contract == "seed":
            if self.ref_module is None or not callable(getattr(self.ref_module, "reference", None)):
                raise LoadError("the seed contract needs ref.py with reference(**kw); pass --reference ref.py")
            self.ref_fn = self.ref_module.reference
            self.load_problem_setup()
            if self.setup_fn is not None:
                self._require_shape(self.setup_fn)
        else:
            self._parse_solve()
            self._cuda_reference()

    def reference_text(self):
        """The problem's reference file as text (None without one), read once: the problem's own words, which
        alone decide its declared inputs and outputs and its tolerance, never the kernel's."""
        if not hasattr(self, "_reference_text"):
            ref = self.req.get("reference")
            path = pathlib.Path(ref) if ref else None
            self._reference_text = path.read_text(errors="replace") if path and path.is_file() else None
        return self._reference_text

    def _parse_solve(self):
        """solve()'s parameters with their roles: --inputs/--outputs, else what ref.py's setup() declares (its
        returned "outputs" list, as fmh66's kernel-opt-agent writes it), else, with nothing `const`, the pointers
        its reference() writes, else `const`. setup()'s number defaults (eps=1e-5) become the scalars' values and
        its integer defaults the default shape."""
        from kgo_harness.formats import formats
        ref_text = self.reference_text()
        decl = formats.setup_declaration(ref_text) if ref_text is not None else None
        inputs, outputs = self.req.get("inputs"), self.req.get("outputs")
        source = self.kernel_path.read_text(errors="replace")
        if not inputs and not outputs:
            try:
                params = cuda_contract.parse_params(source)
            except cuda_contract.ContractError as e:
                raise LoadError(str(e), culprit="contract") from e
            pointers = [p.name for p in params if p.pointer]
            if decl and decl["outputs"]:
                outputs = [n for n in decl["outputs"] if n in pointers] or None
            elif ref_text is not None and not any(p.pointer and p.const for p in params):
                # No `const` anywhere (fmh66's solve(float* A, float* B, float* C)): the pointers the reference
                # writes are the outputs, as its checker compares them.
                outputs = formats.written_by_reference(ref_text, pointers) or None
        try:
            self.params = cuda_contract.parse_solve(source, inputs, outputs)
        except cuda_contract.ContractError as e:
            raise LoadError(str(e), culprit="contract") from e
        self.declared_shape = None
        if decl:
            names = {p.name for p in self.params if not p.pointer}
            for name, value in decl["scalars"].items():
                if name in names:
                    self.args.setdefault(name, value)
            dims = dict(decl["dims"])
            ints = [p.name for p in self.params if not p.pointer and not p.is_float_scalar and p.name not in self.args]
            if ints and all(n in dims for n in ints):
                self.declared_shape = [dims[n] for n in ints]

    def load_problem_setup(self):
        """The judge's setup(): the problem file's (request `problem`), or None where the kernel's process
        makes the inputs (then a warning says the candidate chose them)."""
        self.setup_fn = None
        if self.inputs_from == "judge":
            self.setup_fn = problem_setup(self.req["problem"], sha256_file(self.req["problem"]))
        else:
            self.notes.append("no problem file in the request: the kernel file's own setup() made the inputs "
                              "(kgo init stores the baseline's as problem.py; judge in a workspace)")

    def _ref_function(self):
        ref = getattr(self.ref_module, "reference", None)
        if not callable(ref):
            raise LoadError("ref.py defines no reference(...) function")
        return ref

    def _cuda_reference(self):
        if self.ref_module is not None:
            self.ref_fn = self._ref_function()
        elif self.op is not None:
            self.ref_fn = None
        else:
            raise LoadError("the CUDA contract needs ref.py with reference(**kw) or --op naming a catalog op")

    def _resolve_contract(self, contract, formats):
        if contract != "auto":
            return contract
        if self.kernel_path.suffix in (".cu", ".cuh"):
            return "cuda"
        # The problem file (the baseline's setup()) decides the format where there is one: a candidate
        # without a setup() of its own is still a seed or fmh66 kernel.
        found = formats.detect(self.req.get("problem") or self.kernel_path, self.req.get("reference"))
        if found:
            return found
        if not self.req.get("reference") and formats.ADAPTERS["opus24"].KERNEL_NAME.match(self.kernel_path.name):
            return "opus24"   # its load names the test file to pass as the reference
        text = self.kernel_path.read_text(errors="replace")
        if "def run_kernel" in text and ("def setup" in text or self.req.get("problem")):
            return "seed"
        return "op"

    # --- loading -------------------------------------------------------------------------------
    def _load_op(self):
        if self.op is None:
            raise LoadError("op mode needs the op name (--op, e.g. softmax) to make inputs and pick the torch "
                            f"reference; catalog: {', '.join(ops.names())}")
        self.entry = self.req.get("entry") or self.op.entry
        fn = getattr(self.module, self.entry, None)
        if not callable(fn):
            public = [n for n, v in vars(self.module).items() if callable(v) and n.startswith("triton_")]
            raise LoadError(f"{self.kernel_path.name} defines no function '{self.entry}'"
                            + (f" (it has {', '.join(public)}; pass --entry)" if public else
                               f"; expose {self.op.signature}"))
        self.fn = fn
        try:
            params = inspect.signature(fn).parameters.values()
            var = any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)
            self.fn_params = None if var else len(params)
        except (TypeError, ValueError):
            self.fn_params = None

    def _load_seed(self):
        if self.inputs_from == "judge":
            if not callable(getattr(self.module, "run_kernel", None)):
                raise LoadError(f"{self.kernel_path.name} lacks run_kernel(**kw) required by the seed contract")
            return
        for name in ("setup", "run_kernel"):
            if not callable(getattr(self.module, name, None)):
                raise LoadError(f"{self.kernel_path.name} lacks {name}(**kw) required by the seed contract")
        self._require_shape(self.module.setup)

    def _require_shape(self, setup):
        """The seed contract's setup() takes `shape`; one with named dims is fmh66's (the error says how)."""
        params = inspect.signature(setup).parameters
        if "shape" not in params:
            dims = [n for n in params if n not in ("seed", "dtype", "device") and
                    params[n].kind not in (inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL)]
            shape = (self.req.get("shapes") or [[4096] * len(dims)])[0]
            if not dims:
                raise LoadError("setup() takes no `shape` (the seed contract passes shape=...): add a `shape` "
                                "parameter, or drop --contract seed", culprit="setup")
            hint = " ".join(f"--dim {n}={v}" for n, v in zip(dims, shape))
            raise LoadError(f"setup() takes {', '.join(dims)}; kgo passed shape={tuple(shape)}: use {hint} "
                            "with --contract fmh66 (or drop --contract seed: kgo detects it)", culprit="setup")

    def _load_cuda(self):
        if self.device != "cuda":
            raise LoadError("the CUDA contract needs a GPU (--device cuda); kernel.cu cannot run on the CPU",
                            culprit="environment", needs_gpu=True)
        from kgo_harness.protocol import cache_dir
        self._parse_solve()
        arch = self.req.get("arch")
        if not arch:
            major, minor = torch.cuda.get_device_capability()
            arch = f"sm_{major}{minor}"
        try:
            so, _, seconds = cuda_contract.compile_so(self.kernel_path, arch, cache_dir(self.req),
                                                          (self.req.get("tools") or {}).get("nvcc"))
        except cuda_contract.ContractError as e:
            raise LoadError(str(e)) from e
        self.compile_s = seconds
        self.solve, self._lib = cuda_contract.load_solve(so, self.params)

    # --- cases ---------------------------------------------------------------------------------
    def tolerance(self, case=None):
        """The tolerance policy (tolerance.py) for this problem, or for one case: the dtypes of the case's
        floating inputs, the op family and computed precision the sources declare, the format's stated
        tolerance (an adapter's `stated_tolerance`, a case's `tolerance_override`), ref.py, the request."""
        from kgo_harness import tolerance
        family, precision, ref_precision = self._precision_facts()
        stated = None
        if self.adapter is not None and hasattr(self.adapter, "stated_tolerance"):
            stated = self.adapter.stated_tolerance(self)
        over = getattr(case, "tolerance_override", None)
        if over:
            stated = (over, getattr(case, "tolerance_where", "the case's own tolerance"))
        tensors = case.input_tensors().values() if hasattr(case, "input_tensors") else []
        inputs = [str(t.dtype).replace("torch.", "") for t in tensors
                  if isinstance(t, torch.Tensor) and t.dtype.is_floating_point]
        return tolerance.decide(str(self.dtype).replace("torch.", ""), inputs, family, precision,
                                self.op.tolerance_scale if self.op else 1.0, stated,
                                tolerance_overrides(self.ref_module), self.req, ref_precision)

    def _precision_facts(self):
        """(op family, computed precision, the precision its own reference computes in) from the problem alone (the
        reference's source, the catalog op), never from the kernel's: nothing the candidate writes chooses its
        tolerance; cached."""
        if not hasattr(self, "_precision"):
            from kgo_harness import tolerance
            ref_text = self.reference_text() or ""
            family = tolerance.reference_family(ref_text) or (
                "contraction" if self.op and self.op.tolerance_scale > 1 else None)
            dtype = str(self.dtype).replace("torch.", "")
            self._precision = (family, tolerance.problem_precision(ref_text, family, dtype),
                               tolerance.reference_precision(ref_text, dtype))
        return self._precision

    def case(self, shape, seed, trial):
        gen = torch.Generator(device=self.device)
        gen.manual_seed(seed)
        seed_all(seed)
        if self.adapter is not None:
            return self.adapter.case(self, shape, seed, trial)
        if self.contract == "op":
            return OpCase(self, shape, gen, trial)
        if self.contract == "seed":
            return SeedCase(self, shape, seed, trial)
        return CudaCase(self, shape, gen)

    def shipped_case(self, shape, inputs, output_names):
        """The judge's copy of a case whose inputs the kernel process made (inputs_from "kernel")."""
        if self.adapter is not None:
            return self.adapter.shipped_case(self, shape, inputs, output_names)
        return SeedCase.shipped(self, shape, inputs, output_names)

    def take_provided(self, shape, seed, trial):
        """The inputs the judge shipped for this case (inputs_from "judge"), kept for later calls."""
        got = self.provided.get((tuple(shape), int(seed), int(trial)))
        if got is None:
            raise LoadError(f"the judge sent no inputs for shape {list(shape)} seed {seed} trial {trial}",
                            culprit="contract")
        return got

    def default_shapes(self):
        if self.adapter is not None:
            return self.adapter.default_shapes(self)
        if getattr(self, "declared_shape", None):
            return [list(self.declared_shape)]
        pinned = self.pinned_dims()
        if pinned:
            return [pinned]
        return [list(s) for s in (self.op.default_shapes if self.op else [[64, 1024], [33, 1000]])]

    def edge_shapes(self, shapes):
        """Edge shapes for the planned shapes: the adapter's (from the problem's named dims), else by rank."""
        if self.adapter is not None:
            return self.adapter.edge_shapes(self, shapes)
        if self.pinned_dims():
            return []   # --dim fixed every integer of solve(): no other shape means anything to it
        out = []
        for rank in sorted({len(s) for s in shapes}):
            out += ops.edge_shapes(rank)
        return out

    def pinned_dims(self):
        """For the CUDA contract, the values of solve()'s integer parameters when --dim gives every one (in their
        order), else None: the problem then has this one shape, whatever shape was asked."""
        if self.contract != "cuda" or not getattr(self, "params", None):
            return None
        dims = {**(self.req.get("dims") or {}), **self.args}
        ints = [p.name for p in self.params if not p.pointer and not p.is_float_scalar]
        if not ints or any(not isinstance(dims.get(n), int) for n in ints):
            return None
        return [dims[n] for n in ints]

    def work(self, shape, case):
        """(bytes, flops) for sizes kgo sent no work for (kgo's catalog counts the ops it knows): an adapter's
        own count, else the bytes of the inputs and outputs with FLOPs unknown."""
        if self.adapter is not None and hasattr(case, "work"):
            return case.work()
        outputs = case.output_buffers() or [t for t in as_list(case.eager()()) if isinstance(t, torch.Tensor)]
        total = sum(t.numel() * t.element_size() for t in case.input_tensors().values())
        total += sum(t.numel() * t.element_size() for t in outputs)
        return total, None


class ArgsCase:
    """A case whose kernel takes positional arguments and returns its outputs (no output buffers to poison)."""

    def start(self, problem, shape, seed, trial):
        """The fields every positional-arguments case of a published format starts with; in the kernel process
        (role "kernel") also the arguments the judge shipped, returned so that the case can take more of them.
        None in the judge, where the case makes its own inputs."""
        self.p = problem
        self.shape = list(shape)
        self.output_names = ["out"]
        self._ref = None
        if problem.role != "kernel":
            return None
        got = problem.take_provided(shape, seed, trial)
        self.args = list(got["args"])
        return got

    def input_tensors(self):
        return {f"arg{i}": a for i, a in enumerate(self.args) if isinstance(a, torch.Tensor)}

    def output_buffers(self):
        return []

    def poison_outputs(self):
        pass


class OpCase(ArgsCase):
    def __init__(self, problem, shape, gen, trial):
        self.p = problem
        self.shape = list(shape)
        self.args = problem.op.make(self.shape, problem.dtype, gen, problem.device, problem.args, trial)
        self.args = stress.for_op(problem.op, self.args, trial, gen)
        self.stress = stress.for_op_text(problem.op, trial)
        if problem.fn_params is not None and problem.fn_params < len(self.args):
            # An entry with fewer parameters than the torch op (e.g. add without alpha) gets the leading ones.
            self.args = self.args[:problem.fn_params]
        self.output_names = ["out"]
        self._ref = None

    def run(self):
        return as_list(self.p.fn(*self.args))

    def reference64(self):
        if self._ref is None:
            self._ref = as_list(self.p.ref_fn(*[upcast(a) for a in self.args]))
        return self._ref

    def expected_dtypes(self):
        return [self.p.dtype if r.dtype.is_floating_point else r.dtype for r in self.reference64()]

    def eager(self):
        fn, args = self.p.ref_fn, self.args
        return lambda: fn(*args)

    def eager_callable(self):
        return self.p.ref_fn, self.args, {}


def _encode(v):
    """A setup() value that is neither a tensor nor a JSON scalar, as JSON (TypeError: not shippable)."""
    if v is None:
        return None
    if isinstance(v, torch.dtype):
        return {"torch_dtype": str(v).replace("torch.", "")}
    if isinstance(v, torch.device):
        return {"torch_device": str(v)}
    if isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple)):
        return {"tuple" if isinstance(v, tuple) else "list": [_encode(x) for x in v]}
    raise TypeError(type(v).__name__)


def _decode(v):
    if isinstance(v, dict):
        if "torch_dtype" in v:
            return getattr(torch, v["torch_dtype"])
        if "torch_device" in v:
            return torch.device(v["torch_device"])
        if "tuple" in v:
            return tuple(_decode(x) for x in v["tuple"])
        return [_decode(x) for x in v["list"]]
    return v


class SeedCase:
    """A case of named inputs made by a problem's setup(): in the judge from the problem file (stressed on later
    trials, output buffers NaN-filled, shipped to the kernel's process by name), or, without a problem file,
    in the kernel's process by the kernel file's own setup() (shipped to the judge: `shipped`)."""

    @classmethod
    def shipped(cls, problem, shape, inputs, output_names):
        """The judge's copy of a case whose inputs setup() made in the kernel's process."""
        case = cls.__new__(cls)
        case.p, case.shape, case.inputs, case.output_names, case._ref = problem, list(shape), inputs, \
            list(output_names), None
        case.plain = case.stress = None
        return case

    def __init__(self, problem, shape, seed, trial=0):
        self.p = problem
        self.shape = list(shape)
        self._ref = None
        self.plain = self.stress = None
        if problem.inputs_from == "judge" and problem.role == "kernel":
            self._from_judge(problem.take_provided(shape, seed, trial))
            return
        if problem.inputs_from == "judge":
            seed = (seed * 1000003 + problem.salt) % (2 ** 31 - 1)
        self._take(self.make(seed))
        if problem.inputs_from == "judge":
            for t in self.output_buffers():
                poison(t)
            stressed, self.stress = stress.named(self.inputs, self.output_names, trial, seed,
                                                 stress.chosen(problem.ref_module))
            if stressed is not None:
                self.plain, self.inputs = self.inputs, stressed
            self.trial = trial

    def make(self, seed):
        """setup()'s answer for this case: the problem file's in the judge, the kernel file's otherwise."""
        kw = dict(self.p.args)
        dtype_name = str(self.p.dtype).replace("torch.", "")
        fn = self.p.setup_fn if self.p.inputs_from == "judge" else self.p.module.setup
        try:
            return fn(shape=tuple(self.shape), dtype=dtype_name, seed=seed, device=self.p.device, **kw)
        except Exception as e:
            raise LoadError(f"setup(shape={tuple(self.shape)}, dtype={dtype_name}, seed={seed}, "
                            f"device={self.p.device}) raised {type(e).__name__}: {e}", culprit="setup") from e

    def _take(self, made):
        if not isinstance(made, dict) or "inputs" not in made or "outputs" not in made:
            raise LoadError('setup() must return {"inputs": {...}, "outputs": [names]}', culprit="setup")
        self.inputs = dict(made["inputs"])
        self.output_names = list(made["outputs"])
        missing = [n for n in self.output_names if not isinstance(self.inputs.get(n), torch.Tensor)]
        if missing:
            raise LoadError(f"setup() lists outputs {missing} that are not tensors in its inputs dict",
                            culprit="setup")

    # --- shipping judge-made inputs to the kernel's process (check.provide) ----------------------------
    def shipped_args(self):
        """The inputs in order, as check.provide ships them (names in provided_extra)."""
        return list(self.inputs.values())

    def provided_extra(self):
        """The names, the outputs and the values that are neither tensors nor JSON scalars, encoded."""
        values = {}
        for i, (name, v) in enumerate(self.inputs.items()):
            if type(v) is torch.Tensor or isinstance(v, (bool, int, float, str)):
                continue
            try:
                values[str(i)] = _encode(v)
            except TypeError:
                raise LoadError(f"the problem's setup() returns input '{name}' of type {type(v).__name__}; kgo "
                                "ships tensors, numbers, strings, None, dtypes, devices and lists of those",
                                culprit="setup") from None
        return {"names": list(self.inputs), "outputs": self.output_names, "values": values}

    def _from_judge(self, got):
        args, extra = list(got["args"]), got["extra"]
        for i, v in (extra.get("values") or {}).items():
            args[int(i)] = _decode(v)
        self.inputs = dict(zip(extra["names"], args))
        self.output_names = list(extra["outputs"])

    def input_tensors(self):
        return {k: v for k, v in self.inputs.items()
                if isinstance(v, torch.Tensor) and k not in self.output_names}

    def output_buffers(self):
        return [self.inputs[n] for n in self.output_names]

    def poison_outputs(self):
        for t in self.output_buffers():
            poison(t)

    def run(self):
        self.p.module.run_kernel(**self.inputs)
        return self.output_buffers()

    def _ref_kwargs(self, to64):
        kw = {}
        for k, v in self.inputs.items():
            if k in self.output_names:
                buf = torch.empty_like(v, dtype=torch.float64 if (to64 and v.dtype.is_floating_point) else v.dtype)
                poison(buf)
                kw[k] = buf
            else:
                kw[k] = upcast(v) if to64 else (v.detach().clone() if isinstance(v, torch.Tensor) else v)
        return kw

    def reference64(self):
        if self._ref is None:
            self._ref = stress.settled_reference(self._reference, self.p.dtype, self.plain is not None,
                                                 self._unstress, self._attainable)
        return self._ref

    def _attainable(self, ref):
        """None, or why the stressed inputs ask more than an fp32 contraction on TF32 tensor cores (which the
        problem allows unless it asks for IEEE) can give: the reference itself, run in fp32 with TF32 matmuls,
        misses the case's tolerance against float64 there (an attention's scores at 30 x + 40). A problem that
        asks for IEEE keeps every stress."""
        if self.p._precision_facts()[1] != "tfloat32":
            return None
        tol = self.p.tolerance(self)
        with tf32(True):
            kw = self._ref_kwargs(False)
            low = as_list(self.p.ref_fn(**kw), self.output_names) or [kw[n] for n in self.output_names]
        if all(stress.within(g, w, tol) for g, w in zip(low, ref)
               if isinstance(w, torch.Tensor) and w.dtype.is_floating_point):
            return None
        return (f"the reference itself, in float32 with TF32 matmuls as the kernel computes, misses atol={tol['atol']:g} "
                f"rtol={tol['rtol']:g}")

    def _unstress(self, why):
        self.p.notes.append(f"shape {self.shape} trial {self.trial}: {why} on stressed inputs ({self.stress}); "
                            "the case uses the problem's own inputs")
        self.inputs, self.plain, self.stress = self.plain, None, None

    def _reference(self):
        try:
            kw = self._ref_kwargs(True)
            got = as_list(self.p.ref_fn(**kw), self.output_names)
        except Exception:
            # A reference that cannot run in float64 runs in the kernel's dtype (reported).
            self.p.reference_dtype = str(self.p.dtype).replace("torch.", "")
            kw = self._ref_kwargs(False)
            got = as_list(self.p.ref_fn(**kw), self.output_names)
        return got if got is not None else [kw[n] for n in self.output_names]

    def expected_dtypes(self):
        return [t.dtype for t in self.output_buffers()]

    def eager(self):
        kw = self._ref_kwargs(False)
        fn = self.p.ref_fn
        names = self.output_names
        return lambda: as_list(fn(**kw), names) or [kw[n] for n in names]

    def eager_callable(self):
        return self.p.ref_fn, [], self._ref_kwargs(False)


class CudaCase:
    def __init__(self, problem, shape, gen):
        self.p = problem
        self.shape = list(shape)
        n = math.prod(shape)
        try:
            self.scalars = cuda_contract.scalar_values(problem.params, shape,
                                                       {**(problem.req.get("dims") or {}), **problem.args})
            ints = {k: v for k, v in self.scalars.items() if isinstance(v, int)}
            sizes = {p.name: cuda_contract.buffer_numel(p.name, problem.req.get("sizes") or {}, ints, None)
                     for p in problem.params if p.pointer}
        except cuda_contract.ContractError as e:
            raise LoadError(str(e), culprit="contract") from e
        self.buffers = {}
        pinned = cuda_contract.flat_numel(problem.pinned_dims())
        for prm in problem.params:
            if not prm.pointer:
                continue
            numel = sizes[prm.name] or int(problem.args.get(f"{prm.name}_numel", pinned or n))
            dt = torch_dtype(cuda_contract.POINTEE[prm.base])
            # Outputs start from the same seeded values on both sides (as fmh66's checker gives both the same
            # buffers): an element the reference leaves alone (a flat buffer larger than it writes) must be left
            # alone by the kernel too, and one it writes but the kernel skips keeps a value that differs.
            self.buffers[prm.name] = ops.randn([numel], dt, gen, "cuda")
        self.output_names = [prm.name for prm in problem.params if prm.pointer and not prm.const]
        self.initial = {n: self.buffers[n].clone() for n in self.output_names}
        self._ref = None

    def input_tensors(self):
        return {k: v for k, v in self.buffers.items() if k not in self.output_names}

    def output_buffers(self):
        return [self.buffers[n] for n in self.output_names]

    def poison_outputs(self):
        for n in self.output_names:
            self.buffers[n].copy_(self.initial[n])

    def _call_args(self):
        return [self.buffers[p.name].data_ptr() if p.pointer else self.scalars[p.name] for p in self.p.params]

    def run(self):
        self.p.solve(*self._call_args())
        return self.output_buffers()

    def _kwargs(self, to64):
        kw = {}
        for prm in self.p.params:
            if prm.pointer:
                v = self.buffers[prm.name]
                if prm.name in self.output_names:
                    kw[prm.name] = upcast(self.initial[prm.name]) if to64 else self.initial[prm.name].clone()
                else:
                    kw[prm.name] = upcast(v) if to64 else v.clone()
            else:
                kw[prm.name] = self.scalars[prm.name]
        return kw

    def reference64(self):
        if self._ref is None:
            if self.p.ref_fn is None:
                ins = [upcast(self.buffers[n]).view(self.shape) for n in self.input_tensors()]
                self._ref = [r.reshape(-1) for r in as_list(self.p.op.reference(*ins))]
            else:
                kw = self._kwargs(True)
                got = as_list(self.p.ref_fn(**kw), self.output_names)
                if got is None:
                    untouched = [n for n in self.output_names if torch.equal(kw[n], upcast(self.initial[n]))]
                    if untouched:
                        raise LoadError(f"ref.py's reference() wrote none of {', '.join(untouched)} (solve()'s "
                                        "outputs): it must fill them in place or return them", culprit="reference")
                self._ref = got if got is not None else [kw[n] for n in self.output_names]
        return self._ref

    def expected_dtypes(self):
        return [t.dtype for t in self.output_buffers()]

    def eager(self):
        if self.p.ref_fn is None:
            ins = [self.buffers[n].view(self.shape) for n in self.input_tensors()]
            op = self.p.op
            return lambda: as_list(op.reference(*ins))
        kw = self._kwargs(False)
        fn = self.p.ref_fn
        names = self.output_names
        return lambda: as_list(fn(**kw), names) or [kw[n] for n in names]

    def eager_callable(self):
        if self.p.ref_fn is None:
            return self.p.op.reference, [self.buffers[n].view(self.shape) for n in self.input_tensors()], {}
        return self.p.ref_fn, [], self._kwargs(False)
