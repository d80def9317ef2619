"""fmh66 (kernel-opt-skill) seed files as published: `setup(N=..., D=..., seed=..., dtype=torch.float32)` with
named dims and a torch dtype, `run_kernel(**inputs)`, and ref.py's `reference(**kw)` receiving the output
buffers flattened (as fmh66's checker passes them). A case shape is the dims' values in setup's order. The
setup() that makes the inputs, and whose signature gives the dims, is the problem file's (problem_file.py), run
in the judge; the kernel file's is used only where a request names no problem file."""
import inspect

import torch

from kgo_harness.formats import contracts as C
from kgo_harness.formats import formats

NOT_DIMS = ("seed", "dtype", "device")


def detect(kernel_text, ref_path, ref_text):
    params = formats.function_params(kernel_text, "setup")
    return (params is not None and formats.function_params(kernel_text, "run_kernel") is not None
            and "shape" not in params and any(p not in NOT_DIMS for p in params))


def load(problem):
    """Reference role (the judge): ref.py, and the problem file's setup() (request `problem`), whose signature
    gives the dims and which makes every case's inputs; kernel role: the kernel file's run_kernel, fed the
    inputs the judge ships. Without a problem file the kernel file's own setup() makes the inputs in the
    kernel's process and its dims reach the judge as a kernel fact."""
    problem.inputs_from = "judge" if problem.req.get("problem") else "kernel"
    problem.dims_owner = "setup()"
    if problem.role != "kernel":
        if not problem.req.get("reference"):
            raise C.LoadError("the fmh66 contract needs ref.py with reference(**kw); pass --reference ref.py")
        problem.ref_module = C.import_file(problem.req["reference"], C.sha256_file(problem.req["reference"]))
        if not callable(getattr(problem.ref_module, "reference", None)):
            raise C.LoadError("ref.py defines no reference(**kw) function", culprit="reference")
        problem.ref_fn = problem.ref_module.reference
        problem.load_problem_setup()
        if problem.setup_fn is not None:
            _dims(problem, problem.setup_fn)
        else:
            problem.dim_names, problem.dim_defaults = problem.kernel_info["dims"]
            if problem.kernel_info.get("dtype"):
                problem.dtype = C.torch_dtype(problem.kernel_info["dtype"])
        return
    problem.module = C.import_file(problem.kernel_path, problem.sha)
    needs = ("run_kernel",) if problem.inputs_from == "judge" else ("setup", "run_kernel")
    for name in needs:
        if not callable(getattr(problem.module, name, None)):
            raise C.LoadError(f"{problem.kernel_path.name} lacks {name}() required by the fmh66 contract")
    if not problem.req.get("reference"):
        raise C.LoadError("the fmh66 contract needs ref.py with reference(**kw); pass --reference ref.py")
    if problem.inputs_from == "kernel":
        _dims(problem, problem.module.setup)


def _dims(problem, setup):
    """The named dims: setup's parameters with integer defaults other than seed/dtype/device; other defaults
    (eps=1e-5, causal=True, a name) are setup's own settings, kept unless --arg sets them; its dtype default is
    used where no --dtype was given."""
    sig = inspect.signature(setup)
    params = [p for p in sig.parameters.values()
              if p.name not in NOT_DIMS and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    dims = [p for p in params if type(p.default) is int]
    no_default = [p.name for p in params if p.default is inspect.Parameter.empty and p.name not in problem.args]
    if no_default:
        raise C.LoadError(f"setup() parameters {', '.join(no_default)} have no default, so kgo cannot tell their "
                          "values: give them defaults in setup() (integers are the shape's dims), or pass "
                          + " ".join(f"--arg {n}=VALUE" for n in no_default), culprit="setup")
    problem.dim_names = [p.name for p in dims]
    problem.dim_defaults = [p.default for p in dims]
    problem.facts = {"dims": [problem.dim_names, problem.dim_defaults]}
    declared = sig.parameters["dtype"].default if "dtype" in sig.parameters else None
    if not problem.req.get("dtype_given", True) and isinstance(declared, (torch.dtype, str)):
        # setup()'s own dtype default (kernel-opt-agent's flash attention makes float16) is what its author runs.
        problem.dtype = C.torch_dtype(str(declared).replace("torch.", ""))
        problem.facts["dtype"] = str(problem.dtype).replace("torch.", "")
    problem.setup_takes_device = "device" in sig.parameters


def shipped_case(problem, shape, inputs, output_names):
    return Fmh66Case.shipped(problem, shape, inputs, output_names)


class Fmh66Case(C.SeedCase):
    def make(self, seed):
        """setup(**dims, seed=, dtype=[, device=]): the problem file's in the judge, the kernel file's otherwise."""
        problem = self.p
        kw = dict(problem.args)
        kw.update(formats.dims_for(problem, self.shape), seed=seed, dtype=problem.dtype)
        if problem.setup_takes_device:
            kw["device"] = problem.device
        fn = problem.setup_fn if problem.inputs_from == "judge" else problem.module.setup
        try:
            with formats.on_device(problem.device):
                return fn(**kw)
        except Exception as e:
            called = ", ".join(f"{k}={v}" for k, v in kw.items())
            raise C.LoadError(f"setup({called}) raised {type(e).__name__}: {e}", culprit="setup") from e

    def run(self):
        with formats.on_device(self.p.device):
            self.p.module.run_kernel(**self.inputs)
        return self.output_buffers()

    def _ref_kwargs(self, to64):
        kw = super()._ref_kwargs(to64)
        for n in self.output_names:
            kw[n] = kw[n].view(-1)
        return kw

    def reference64(self):
        if self._ref is None:
            with formats.on_device(self.p.device):
                got = super().reference64()
            self._ref = [r.reshape(b.shape) if isinstance(r, torch.Tensor) and r.numel() == b.numel() else r
                         for r, b in zip(got, self.output_buffers())]
        return self._ref


Case = Fmh66Case  # the case formats.case builds
