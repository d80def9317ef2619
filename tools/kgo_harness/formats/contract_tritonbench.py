"""tritonbench `Operator` classes: `class Operator(BenchmarkOperator)` whose `@register_benchmark` methods take
one input tuple and return a zero-argument callable; the `baseline=True` one is the reference, the named one
(`--entry`, else the only other) the kernel. Inputs are `get_input_iter()`'s tuples (under the case's seed); a
case shape is `[k]`, the k-th input tuple counted from 1
(kgo's shapes are positive; tritonbench's `--input-id k-1`). Where tritonbench is not installed, a minimal stand-in of
`tritonbench.utils.triton_op` (BenchmarkOperator, register_benchmark, register_metric) lets the file import, and
the other `tritonbench.utils.<helper>` modules published operators import beside it (env_utils, data_utils, ...)
read as stubs whose functions return None, so `if is_fbcode() and ...` is False. A benchmark registered with
enabled=False (an optional library missing) is never the default entry."""
import argparse
import importlib.abc
import importlib.util
import itertools
import re
import sys
import types

import torch

from kgo_harness.formats import contracts as C

MAX_INPUTS = 64


def detect(kernel_text, ref_path, ref_text):
    return bool(re.search(r"^class\s+Operator\s*\(\s*BenchmarkOperator\s*\)", kernel_text, re.M))


def _register_benchmark(baseline=False, enabled=True, label=None, **_):
    def tag(fn):
        fn._kgo_benchmark = {"baseline": baseline, "enabled": enabled, "label": label or fn.__name__}
        return fn
    return tag


def _register_metric(*_, **__):
    return lambda fn: fn


class _BenchmarkOperator:
    """What an Operator's own code reads from its base: device, dtype, tb_args, extra_args."""
    DEFAULT_METRICS = []

    def __init__(self, tb_args=None, extra_args=None):
        self.tb_args = tb_args or argparse.Namespace()
        self.extra_args = extra_args or []
        self.device = getattr(self.tb_args, "device", "cuda")
        self.dtype = getattr(self.tb_args, "dtype", torch.float32)


class _Helpers(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """tritonbench.utils.<helper> for a stand-in tritonbench: each name asked of it is a function returning None."""

    def find_spec(self, name, path=None, target=None):
        if name.startswith("tritonbench.utils.") and name.count(".") == 2:
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        return _HelperModule(spec.name)

    def exec_module(self, module):
        pass


class _HelperModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *args, **kwargs: None


def _install_stand_in():
    try:
        import tritonbench.utils.triton_op  # noqa: F401
        return False
    except ImportError:
        pass
    mod = types.ModuleType("tritonbench.utils.triton_op")
    mod.BenchmarkOperator = _BenchmarkOperator
    mod.register_benchmark = _register_benchmark
    mod.register_metric = _register_metric
    mod.BenchmarkOperatorMetrics = dict
    mod.Mode = types.SimpleNamespace(FWD="fwd", BWD="bwd", FWD_BWD="fwd_bwd", FWD_NO_GRAD="fwd_no_grad")
    for name in ("tritonbench", "tritonbench.utils"):
        pkg = types.ModuleType(name)
        pkg.__path__ = []
        sys.modules.setdefault(name, pkg)
    sys.modules["tritonbench.utils.triton_op"] = mod
    sys.modules["tritonbench.utils"].triton_op = mod
    if not any(isinstance(f, _Helpers) for f in sys.meta_path):
        sys.meta_path.append(_Helpers())
    return True


def _benchmarks(cls):
    out = {}
    for name in dir(cls):
        meta = getattr(getattr(cls, name, None), "_kgo_benchmark", None)
        if meta is not None:
            out[name] = meta
    return out


def load(problem):
    """The Operator's file holds both sides. Kernel role: the named benchmark, and the input tuples (shipped to
    the judge: inputs_from "kernel"); baseline role (a second process, remote.Pool.helper): the baseline only;
    reference role (the judge): neither, it never imports the file; the baseline's outputs come as bytes."""
    problem.inputs_from = "kernel"
    problem.dim_names = ["input"]
    problem.dims_owner = "the Operator"
    if problem.role == "reference":
        problem.entry = problem.kernel_info.get("entry")
        problem.input_count = int(problem.kernel_info.get("input_count") or 0)
        return
    stand_in = _install_stand_in()
    problem.module = C.import_file(problem.kernel_path, problem.sha)
    cls = getattr(problem.module, "Operator", None)
    if cls is None:
        raise C.LoadError(f"{problem.kernel_path.name} defines no Operator class", culprit="kernel")
    benches = _benchmarks(cls)
    if not stand_in and not benches:
        raise C.LoadError("tritonbench is installed, and its register_benchmark keeps no marks kgo can read; "
                          "run without tritonbench on the path (kgo provides a stand-in)", culprit="environment")
    baselines = [n for n, m in benches.items() if m["baseline"]]
    if len(baselines) != 1:
        raise C.LoadError(f"the Operator needs exactly one @register_benchmark(baseline=True) method as the "
                          f"reference; it has {', '.join(baselines) or 'none'}")
    others = [n for n, m in benches.items() if not m["baseline"]]
    entry = problem.req.get("entry")
    if entry is None:
        enabled = [n for n in others if benches[n]["enabled"]]
        others = enabled if len(enabled) == 1 else others
        if len(others) != 1:
            raise C.LoadError(f"the Operator has benchmarks {', '.join(others) or 'none'} besides the baseline "
                              f"{baselines[0]}; name the one to check with --entry")
        entry = others[0]
    if entry not in others:
        raise C.LoadError(f"--entry {entry} is not one of the Operator's benchmarks ({', '.join(others)})")
    args = argparse.Namespace(device=problem.device, dtype=problem.dtype, precision=str(problem.dtype))
    try:
        problem.operator = cls(args, [])
    except Exception as e:
        raise C.LoadError(f"Operator(tb_args, extra_args) raised {type(e).__name__}: {e}", culprit="setup") from e
    problem.entry = baselines[0] if problem.role == "baseline" else entry
    operator, name = problem.operator, problem.entry
    problem.run_entry = lambda call_args: C.as_list(getattr(operator, name)(*call_args)())
    problem.facts = {"reference_in_kernel_file": True, "input_count": _input_set(problem, 0, None)}


def _input_set(problem, seed, k):
    """The k-th input tuple (from 1) under the seed, or with k None how many there are (at most MAX_INPUTS). The
    tuples before it are drawn too, so each one is the same whichever is asked, but only one is kept."""
    C.seed_all(seed)
    count = 0
    try:
        for count, item in enumerate(itertools.islice(problem.operator.get_input_iter(), MAX_INPUTS), 1):
            if count == k:
                return item
            del item
    except Exception as e:
        raise C.LoadError(f"Operator.get_input_iter() raised {type(e).__name__}: {e}", culprit="setup") from e
    return count


def default_shapes(problem):
    count = problem.input_count
    if count == 0:
        raise C.LoadError("Operator.get_input_iter() yields no inputs", culprit="setup")
    asked = [s[0] for s in problem.req.get("shapes") or [] if problem.req.get("shapes_given", True)]
    bad = [k for k in asked if k > count]
    if bad:
        raise C.LoadError(f"the Operator yields {count} input sets; --shape {bad[0]} is not one of them "
                          f"(--shape K takes the K-th, 1 to {count}: tritonbench's --input-id K-1)")
    return [[k] for k in asked] or [[k] for k in range(1, count + 1)]


def edge_shapes(problem, shapes):
    return []  # the Operator owns its inputs


def case(problem, shape, seed, trial):
    return TritonBenchCase(problem, shape, seed)


def shipped_case(problem, shape, inputs, output_names):
    return TritonBenchCase.shipped(problem, shape, inputs)


class TritonBenchCase(C.ArgsCase):
    """Kernel role: an input tuple from get_input_iter() and the named benchmark; the judge's copy (shipped)
    holds the same inputs and asks the baseline process for the reference."""

    def __init__(self, problem, shape, seed):
        self.p = problem
        self.shape = list(shape)
        item = _input_set(problem, seed, shape[0])
        self.args = list(item) if isinstance(item, (tuple, list)) else [item]
        self.output_names = ["out"]
        self._ref = None

    @classmethod
    def shipped(cls, problem, shape, inputs):
        case = cls.__new__(cls)
        case.p, case.shape, case.output_names, case._ref = problem, list(shape), ["out"], None
        case.args = [inputs[f"arg{i}"] for i in range(len(inputs))]
        return case

    def run(self):
        return self.p.run_entry(self.args)

    def _baseline(self, args):
        # The judge runs the Operator's baseline in a second process (judge.check.baseline_outputs).
        return self.p.run_baseline(args)

    def reference64(self):
        if self._ref is None:
            try:
                self._ref = self._baseline([C.upcast(a) for a in self.args])
            except C.BaselineError:
                self.p.reference_dtype = str(self.p.dtype).replace("torch.", "")
                self._ref = self._baseline(list(self.args))
        return self._ref

    def expected_dtypes(self):
        return [self.p.dtype if r.dtype.is_floating_point else r.dtype for r in self.reference64()]

    def eager(self):
        raise C.LoadError("the baseline lives in the Operator's own file, which the judge does not run; "
                          "its time is not measured here", culprit="contract")

    def eager_callable(self):
        self.eager()

    def work(self):
        total = sum(a.numel() * a.element_size() for a in self.args if isinstance(a, torch.Tensor))
        total += sum(r.numel() * self.p.dtype.itemsize for r in self.reference64() if isinstance(r, torch.Tensor))
        return total, None
