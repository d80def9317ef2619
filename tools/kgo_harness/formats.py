"""Published kernel formats kgo takes as they are. Each adapter module (contract_<name>.py) offers
`detect(kernel_text, ref_path, ref_text) -> bool`, `load(problem)`, `case(problem, shape, seed, trial)`,
`default_shapes(problem)` and `edge_shapes(problem, shapes)`. This module detects the format from the files and
holds what the named-dims formats share: mapping shapes to dims, problem-aware edge dims, CPU device mapping."""
import ast
import contextlib
import pathlib

import torch
from torch.overrides import TorchFunctionMode

from kgo_harness import contract_fmh66, contract_kernelbench, contract_solexec, contract_tritonbench

ADAPTERS = {"fmh66": contract_fmh66, "kernelbench": contract_kernelbench, "sol-execbench": contract_solexec,
            "tritonbench": contract_tritonbench}


def _text(path):
    if not path:
        return ""
    try:
        return pathlib.Path(path).read_text(errors="replace")
    except OSError:
        return ""


def detect(kernel_path, reference_path):
    """The adapter name the files fit, or None (the seed/op contracts then decide)."""
    kernel_text = _text(kernel_path)
    ref_text = _text(reference_path)
    for name in ("kernelbench", "sol-execbench", "tritonbench", "fmh66"):
        if ADAPTERS[name].detect(kernel_text, reference_path, ref_text):
            return name
    return None


def function_params(source, name):
    """Parameter names of the module-level `def name(...)` in source, or None (no such function)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            a = node.args
            return [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    return None


# --- named dims --------------------------------------------------------------------------------------
def dims_for(problem, shape):
    """{dim name: value} for a case shape: the shape's axes map to the dims in order."""
    names = problem.dim_names
    if len(shape) != len(names):
        raise _load_error(problem, f"{problem.dims_owner} takes {', '.join(names)}; kgo passed "
                                   f"shape={tuple(shape)} with {len(shape)} axes: use "
                                   + " ".join(f"--dim {n}={v}" for n, v in zip(names, problem.dim_defaults))
                                   + f" or a shape with {len(names)} axes ({'x'.join(names)})")
    return dict(zip(names, shape))


def shapes_from_request(problem):
    """The request's shapes with --dim values applied, or the problem's defaults with them applied."""
    dims = {k: int(v) for k, v in (problem.req.get("dims") or {}).items()}
    unknown = [k for k in dims if k not in problem.dim_names]
    if unknown:
        raise _load_error(problem, f"{problem.dims_owner} takes {', '.join(problem.dim_names)}; --dim "
                                   f"{', '.join(unknown)} is not one of them")
    given = problem.req.get("shapes_given", True)
    shapes = [list(s) for s in (problem.req.get("shapes") if given else None) or []] or [list(problem.dim_defaults)]
    out = []
    for s in shapes:
        if len(s) != len(problem.dim_names):
            dims_for(problem, s)  # raises with the fix
        out.append([dims.get(n, v) for n, v in zip(problem.dim_names, s)])
    return out


def edge_dims(base):
    """Edge variants of a dims vector: all ones, every dim odd and small (<= 17), every dim odd and medium
    (<= 67); each keeps the base's order of sizes, so a dim never outgrows one that was larger."""
    def odd(v, cap):
        v = min(v, cap)
        return max(1, v - 1 if v % 2 == 0 else v)
    variants = [[1] * len(base), [odd(v, 17) for v in base], [odd(v, 67) for v in base]]
    out = []
    for v in variants:
        if v != list(base) and v not in out:
            out.append(v)
    return out


def _load_error(problem, message, culprit="contract"):
    from kgo_harness.contracts import LoadError
    return LoadError(message, culprit=culprit)


# --- device mapping ------------------------------------------------------------------------------------
class _CudaToCpu(TorchFunctionMode):
    """Runs code that hard-codes device="cuda" on the CPU: factory functions, .to() and .cuda()."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func is torch.Tensor.cuda:
            return args[0]
        dev = kwargs.get("device")
        if dev is not None and "cuda" in str(dev):
            kwargs["device"] = "cpu"
        args = tuple("cpu" if (isinstance(a, (str, torch.device)) and "cuda" in str(a)) else a for a in args)
        return func(*args, **kwargs)


def on_device(device):
    """A context in which user code's CUDA allocations land on `device` (a no-op on the GPU)."""
    return _CudaToCpu() if device == "cpu" else contextlib.nullcontext()
