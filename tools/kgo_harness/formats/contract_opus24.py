"""opus24/mcp-for-triton-kernel's layout: a kernel file `triton_<op>_kernel_v<N>.py` (in kernel/) exposing
`solve(*inputs)` that returns the output, and its test file `test_<op>_kernel.py` (in tests/, beside kernel/)
that holds the reference (`reference(*inputs)`), the inputs (`_test_case_<k>_data()` returning the positional
arguments, on device "cuda") and the tolerance (`torch.allclose(actual, expected, rtol=..., atol=...)`).
The test file is the reference; its numbered data functions are the cases: dim `case` (--dim case=K)."""
import ast
import pathlib
import re

import torch

from kgo_harness.formats import contracts as C
from kgo_harness.formats import formats

KERNEL_NAME = re.compile(r"^triton_(?P<op>\w+?)_kernel_v\d+\.py$")
DATA_FN = re.compile(r"^_test_case_(\d+)_data$")


def test_file_for(kernel_path):
    """The published test file of a `triton_<op>_kernel_v<N>.py`: test_<op>_kernel.py beside it, in tests/
    beside it, or in ../tests (the repository's kernel/ and tests/ folders); None when there is none."""
    path = pathlib.Path(kernel_path)
    m = KERNEL_NAME.match(path.name)
    if not m:
        return None
    name = f"test_{m.group('op')}_kernel.py"
    for folder in (path.parent, path.parent / "tests", path.parent.parent / "tests"):
        if (folder / name).is_file():
            return folder / name
    return None


def _data_functions(tree):
    found = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and DATA_FN.match(node.name):
            found.append((int(DATA_FN.match(node.name).group(1)), node.name))
    return sorted(found)


def detect(kernel_text, ref_path, ref_text):
    if not re.search(r"^def\s+solve\s*\(", kernel_text, re.M):
        return False
    try:
        tree = ast.parse(ref_text)
    except SyntaxError:
        return False
    return formats.function_params(ref_text, "reference") is not None and bool(_data_functions(tree))


def stated_tolerance(problem):
    """The loosest atol/rtol of the test file's torch.allclose / assert_close calls (its own pass rule)."""
    found = {}
    for node in ast.walk(ast.parse(problem.ref_text)):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
                "allclose", "assert_close", "assert_allclose"):
            for kw in node.keywords:
                if kw.arg in ("atol", "rtol") and isinstance(kw.value, ast.Constant) and \
                        isinstance(kw.value.value, (int, float)):
                    found[kw.arg] = max(found.get(kw.arg, 0.0), float(kw.value.value))
    return (found, f"{pathlib.Path(problem.req['reference']).name}'s torch.allclose") if found else None


def load(problem):
    """Reference role: the test file (reference, data functions, tolerance); kernel role: the kernel's solve()
    only, fed the inputs the judge ships (inputs_from "judge")."""
    problem.inputs_from = "judge"
    problem.dims_owner = "the test file (its _test_case_<k>_data functions)"
    if not problem.req.get("reference"):
        m = KERNEL_NAME.match(problem.kernel_path.name)
        name = f"test_{m.group('op')}_kernel.py" if m else "test_<op>_kernel.py"
        raise C.LoadError("an opus24 kernel is judged by its test file (reference and inputs): pass --reference "
                          f"{test_file_for(problem.kernel_path) or name} (kgo init finds it beside the kernel or "
                          "in tests/)", culprit="contract")
    if problem.role == "kernel":
        problem.module = C.import_file(problem.kernel_path, problem.sha)
        problem.entry = problem.req.get("entry") or "solve"
        problem.fn = getattr(problem.module, problem.entry, None)
        if not callable(problem.fn):
            raise C.LoadError(f"{problem.kernel_path.name} defines no {problem.entry}(); pass --entry NAME",
                              culprit="kernel")
        return
    ref = problem.req["reference"]
    problem.ref_text = pathlib.Path(ref).read_text(errors="replace")
    problem.ref_module = C.import_file(ref, C.sha256_file(ref))
    problem.ref_fn = problem.ref_module.reference
    problem.data = dict(_data_functions(ast.parse(problem.ref_text)))
    problem.dim_names, problem.dim_defaults = ["case"], [min(problem.data)]


def default_shapes(problem):
    if problem.req.get("dims") or (problem.req.get("shapes") and problem.req.get("shapes_given", True)):
        shapes = formats.shapes_from_request(problem)
    else:
        shapes = [[k] for k in sorted(problem.data)]
    unknown = [s[0] for s in shapes if s[0] not in problem.data]
    if unknown:
        raise C.LoadError(f"the test file has cases {', '.join(map(str, sorted(problem.data)))}; --dim case="
                          f"{unknown[0]} is not one of them", culprit="contract")
    return shapes


def edge_shapes(problem, shapes):
    return []   # the cases are the test file's own inputs


class Opus24Case(C.ArgsCase):
    def __init__(self, problem, shape, seed, trial):
        if self.start(problem, shape, seed, trial) is not None:
            return
        C.seed_all(seed)
        fn = getattr(problem.ref_module, problem.data[shape[0]])
        try:
            with formats.on_device(problem.device):
                made = fn()
        except Exception as e:
            raise C.LoadError(f"the test file's {fn.__name__}() raised {type(e).__name__}: {e}",
                              culprit="reference") from e
        self.args = list(made) if isinstance(made, (tuple, list)) else [made]

    def run(self):
        return C.as_list(self.p.fn(*self.args))

    def reference64(self):
        if self._ref is None:
            try:
                self._ref = C.as_list(self.p.ref_fn(*[C.upcast(a) for a in self.args]))
            except (RuntimeError, TypeError, NotImplementedError):
                self.p.reference_dtype = "input dtypes"
                self._ref = C.as_list(self.p.ref_fn(*[a.clone() if isinstance(a, torch.Tensor) else a
                                                      for a in self.args]))
        return self._ref

    def expected_dtypes(self):
        floats = [a.dtype for a in self.args if isinstance(a, torch.Tensor) and a.dtype.is_floating_point]
        return [floats[0] if floats and r.dtype.is_floating_point else r.dtype for r in self.reference64()]

    def eager(self):
        fn, args = self.p.ref_fn, self.args
        return lambda: C.as_list(fn(*args))

    def eager_callable(self):
        return self.p.ref_fn, self.args, {}


Case = Opus24Case  # the case formats.case builds
