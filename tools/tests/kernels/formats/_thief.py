"""What a format kernel in this folder tries, to reach the reference from its own process: the reference's code
(any loaded module but its own file's that holds a `reference`, a KernelBench `Model`, a SOL-ExecBench
definition's `run`), or its outputs (a float64 tensor of the output's size, through the garbage collector or
up the stack). At import it also replaces the harness's comparison with one that always passes, which
matters only in a process that compares (one that imported this file). Imported by the *_thief kernels."""
import gc
import sys

import torch


def _always(name, out, ref, *args, **kwargs):
    return {"name": name, "max_abs_err": 0.0, "mean_abs_err": 0.0, "rel_err": 0.0, "allclose": True,
            "mismatches": 0, "numel": int(getattr(ref, "numel", lambda: 0)()), "nonfinite": 0,
            "first_bad_index": None, "first_bad_got": None, "first_bad_expected": None, "message": "",
            "passed": True}


try:
    import kgo_harness.judge.compare as _compare
    _compare.compare = _always
except ImportError:
    pass


def _user_module(name, mod):
    """A module of user files (how kgo names them: kgo_<stem>_<hash>, kgo_definition_<name>) or one loaded
    from outside the Python installation and kgo's harness."""
    path = getattr(mod, "__file__", None) or ""
    if name.startswith("kgo_"):
        return True
    return bool(path) and not path.startswith((sys.base_prefix, sys.prefix)) and "-packages" not in path \
        and "/kgo_harness/" not in path


def reference_code(own_module):
    for name, mod in list(sys.modules.items()):
        if mod is None or mod is sys.modules.get(own_module) or not _user_module(name, mod):
            continue
        d = getattr(mod, "__dict__", {})
        for attr in ("reference", "Model", "run"):
            if attr in d and getattr(d[attr], "__module__", None) == name:
                return attr, d[attr]
    return None


def reference_outputs(like):
    def fits(v):
        return type(v) is torch.Tensor and v.dtype == torch.float64 and v.numel() == like.numel()
    for obj in gc.get_objects():
        if fits(obj):
            return obj.reshape(like.shape).to(like.dtype)
    frame = sys._getframe(1)
    while frame is not None:
        for v in list(frame.f_locals.values()):
            if fits(v):
                return v.reshape(like.shape).to(like.dtype)
        frame = frame.f_back
    return None
