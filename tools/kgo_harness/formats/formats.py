"""Published kernel formats kgo takes as they are. Each adapter module (contract_<name>.py) offers
`detect(kernel_text, ref_path, ref_text) -> bool`, `load(problem)`, `case(problem, shape, seed, trial)`,
`default_shapes(problem)` and `edge_shapes(problem, shapes)`; where it leaves one out, the named-dims default
below serves (`case` then builds the adapter's `Case`). This module detects the format from the files and
holds what the named-dims formats share: mapping shapes to dims, problem-aware edge dims, CPU device mapping."""
import ast
import contextlib
import pathlib

import torch
from torch.overrides import TorchFunctionMode

from kgo_harness.formats import contract_fmh66, contract_kernelbench, contract_opus24, contract_solexec, contract_tritonbench

ADAPTERS = {"fmh66": contract_fmh66, "kernelbench": contract_kernelbench, "sol-execbench": contract_solexec,
            "tritonbench": contract_tritonbench, "opus24": contract_opus24}


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
    for name in ("kernelbench", "sol-execbench", "tritonbench", "opus24", "fmh66"):
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


def written_by_reference(source, names):
    """Of `names` (solve()'s pointers), those ref.py's reference() writes, read from the source without running it:
    the root name of an in-place method's target (`C[:n].copy_(x)`, `out.zero_()`), of a subscript assignment
    (`y[i] = v`) or augmented assignment, or an `out=` argument. How fmh66's references fill their outputs; [] when
    reference() is absent or writes none of them (the caller then asks for roles)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "reference"), None)
    if fn is None:
        return []

    def root(node):
        while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
            node = node.func if isinstance(node, ast.Call) else node.value
        return node.id if isinstance(node, ast.Name) else None
    written = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute) and f.attr.endswith("_") and not f.attr.startswith("_"):
                written.add(root(f.value))
            written |= {root(k.value) for k in node.keywords if k.arg == "out"}
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            written |= {root(x) for x in targets if isinstance(x, ast.Subscript)
                        or isinstance(node, ast.AugAssign)}
    return [n for n in names if n in written]


def setup_declaration(source):
    """What a module-level `def setup(...)` declares, read from the source without running it: `dims` [(name,
    int default)] (its integer parameters with defaults: the shape), `scalars` {name: default} (its other
    parameters with a number default, e.g. eps=1e-5: not dims), `no_default` (parameters without a default) and
    `outputs`/`inputs` (the string lists of a returned {"inputs": ..., "outputs": [...]} dict literal, or None).
    None when there is no setup()."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "setup"), None)
    if fn is None:
        return None
    a = fn.args
    params = a.posonlyargs + a.args
    defaults = [None] * (len(params) - len(a.defaults)) + list(a.defaults)
    pairs = list(zip(params, defaults)) + list(zip(a.kwonlyargs, a.kw_defaults))
    out = {"dims": [], "scalars": {}, "no_default": [], "outputs": None, "inputs": None}
    for arg, default in pairs:
        if arg.arg in ("seed", "dtype", "device"):
            continue
        value = default.value if isinstance(default, ast.Constant) else None
        if type(value) is int:
            out["dims"].append((arg.arg, value))
        elif isinstance(value, (int, float)):   # float or bool
            out["scalars"][arg.arg] = value
        elif default is None:
            out["no_default"].append(arg.arg)
    for node in ast.walk(fn):
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if isinstance(k, ast.Constant) and k.value in ("outputs", "inputs"):
                    names = _string_list(v) if k.value == "outputs" else _dict_keys(v)
                    if names is not None:
                        out[k.value] = names
    return out


def _string_list(node):
    if isinstance(node, (ast.List, ast.Tuple)) and all(isinstance(e, ast.Constant) and isinstance(e.value, str)
                                                       for e in node.elts):
        return [e.value for e in node.elts]
    return None


def _dict_keys(node):
    if isinstance(node, ast.Dict) and all(isinstance(k, ast.Constant) and isinstance(k.value, str)
                                          for k in node.keys):
        return [k.value for k in node.keys]
    return None


# --- named dims --------------------------------------------------------------------------------------
def dims_for(problem, shape):
    """{dim name: value} for a case shape: the shape's axes map to the dims in order."""
    names = problem.dim_names
    if len(shape) != len(names):
        raise _load_error(problem, dims_mismatch(problem.dims_owner, names, problem.dim_defaults, shape))
    return dict(zip(names, shape))


def dims_mismatch(owner, names, defaults, shape):
    """The message for a shape whose axes do not match the named dims: it names the dims and the flags that
    fit, with the values kgo would use (never an empty list of names)."""
    if not names:
        return (f"{owner} has no named dims (its inputs are fixed), so a shape cannot set them; kgo passed "
                f"shape={tuple(shape)}: drop --shape (and the workspace's shapes: kgo init without --shape)")
    flags = " ".join(f"--dim {n}={v}" for n, v in zip(names, defaults))
    return (f"{owner} takes {', '.join(names)}; kgo passed shape={tuple(shape)} with {len(shape)} axes: use "
            f"{flags} or --shape {'x'.join(str(v) for v in defaults)} ({'x'.join(names)})")


def shapes_from_request(problem):
    """The request's shapes with --dim values applied, or the problem's defaults with them applied. A problem
    without named dims runs its one fixed case; shapes given to it are set aside with a note."""
    dims = {k: int(v) for k, v in (problem.req.get("dims") or {}).items()}
    unknown = [k for k in dims if k not in problem.dim_names]
    if unknown:
        takes = (f"takes {', '.join(problem.dim_names)}" if problem.dim_names else "has no named dims")
        raise _load_error(problem, f"{problem.dims_owner} {takes}; --dim {', '.join(unknown)} is not one of "
                                   "them" + ("" if problem.dim_names else ": drop it"))
    given = problem.req.get("shapes_given", True)
    asked = [list(s) for s in (problem.req.get("shapes") if given else None) or []]
    if not problem.dim_names:
        if asked:
            note = (f"{problem.dims_owner} has no named dims (its inputs are fixed): the shapes "
                    f"{', '.join('x'.join(map(str, s)) for s in asked)} were not used")
            notes = problem.__dict__.setdefault("notes", [])
            if note not in notes:
                notes.append(note)
        return [[]]
    shapes = asked or [list(problem.dim_defaults)]
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


def default_shapes(problem):
    """The named-dims default: the request's shapes (or dims) mapped onto the problem's dims."""
    return shapes_from_request(problem)


def edge_shapes(problem, shapes):
    """The named-dims default: each planned shape's edge dims."""
    out = []
    for s in shapes:
        out += edge_dims(s)
    return out


def case(problem, shape, seed, trial):
    """The default: the adapter's Case class, given the case's shape, seed and trial."""
    return problem.adapter.Case(problem, shape, seed, trial)


DEFAULTS = {"default_shapes": default_shapes, "edge_shapes": edge_shapes, "case": case}
for _adapter in ADAPTERS.values():
    for _name, _default in DEFAULTS.items():
        if not hasattr(_adapter, _name):
            setattr(_adapter, _name, _default)


def _load_error(problem, message, culprit="contract"):
    from kgo_harness.formats.contracts import LoadError
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
