"""interpret.install: Triton's interpreter runs kernels in the same swapped state and computes the same outputs as
shipped, but lists the language's members once per module instead of on every @triton.jit call inside a kernel,
and skips a device call's swap of modules its launch has swapped already; the index swap of Triton 3.6 is mended
for NumPy 2."""
# ctest-cost: 6
import json
import os
import subprocess
import sys
import types

import pytest

from conftest import TOOLS
from kgo_harness.formats import interpret

# Runs a reduction kernel (tl.sum and tl.max call @triton.jit combine functions: device calls) `launches` times
# under the interpreter and prints, at every swap (a launch's and each device call's) and after each launch, the
# state the kernel's code meets: per language module or class, its members that are still builtins and those that
# differ from before the first launch; also what each launch's own swap changed, how often the members had been
# listed after each launch, and the output.
PROBE = r"""
import inspect, json, sys
import torch, triton, triton.language as tl
import triton.runtime.interpreter as it
from kgo_harness.formats import interpret
if sys.argv[1] == "installed":
    assert interpret.install()
launches = int(sys.argv[2])
scans, states, launch_swaps = [0], [], []
listing = inspect.getmembers
def counted(obj, *a):
    scans[0] += 1
    return listing(obj, *a)
inspect.getmembers = counted
places = {"tl": tl, "core": tl.core, "math": tl.math, "tensor": tl.core.tensor,
          "descriptor": tl.core.tensor_descriptor_base, "dtype": tl.core.dtype}
before = {k: {n: vars(p).get(n) for n in dir(p)} for k, p in places.items()}
def state():
    out = {}
    for k, p in places.items():
        names = dir(p)
        out[k] = [sorted(n for n in names if tl.core.is_builtin(getattr(p, n, None))),
                  sorted(n for n in names if vars(p).get(n) is not before[k].get(n))]
    return out
original_patch_lang = it._patch_lang
def recorded(fn):
    scope = original_patch_lang(fn)
    states.append(state())
    return scope
it._patch_lang = recorded
original_launch = it.GridExecutor.__call__
def launch(self, *a, **k):
    scope_of = it._patch_lang
    def first(fn):
        it._patch_lang = scope_of
        scope = scope_of(fn)
        launch_swaps.append(sorted(f"{getattr(o, '__name__', type(o).__name__)}.{n}" for o, n, _ in scope._changes))
        return scope
    it._patch_lang = first
    try:
        return original_launch(self, *a, **k)
    finally:
        it._patch_lang = scope_of
        states.append({"after launch": state()})
it.GridExecutor.__call__ = launch

@triton.jit
def rows(x_ptr, y_ptr, n: tl.constexpr):
    r = tl.program_id(0)
    x = tl.load(x_ptr + r * n + tl.arange(0, n))
    y = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + r * n + tl.arange(0, n), y / tl.sum(y, axis=0))

torch.manual_seed(0)
x = torch.randn(6, 32)
after = []
for _ in range(launches):
    y = torch.empty_like(x)
    rows[(6,)](x, y, 32)
    after.append(scans[0])
print(json.dumps({"scans": after, "states": states, "launch_swaps": launch_swaps, "y": y.flatten().tolist()}))
"""


LAUNCHES = 5


@pytest.fixture(scope="module")
def runs():
    return {mode: probe(mode, LAUNCHES) for mode in ("shipped", "installed")}


def probe(mode, launches):
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(TOOLS))
    out = subprocess.run([sys.executable, "-c", PROBE, mode, str(launches)], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_kernel_meets_the_shipped_interpreters_state_and_gives_its_outputs(runs):
    shipped, installed = runs["shipped"], runs["installed"]
    assert installed["launch_swaps"] == shipped["launch_swaps"]   # each launch swapped the same attributes, in order
    assert installed["states"] == shipped["states"]               # at every swap and after each launch
    assert len(shipped["states"]) > 3 * LAUNCHES                  # device calls swapped too, not only the launches
    swapped = [s for s in shipped["states"] if "after launch" not in s]
    assert all(s["tl"][0] == [] and "load" in s["tl"][1] and "exp" in s["math"][1] for s in swapped)  # swapped
    assert installed["y"] == shipped["y"]                         # bitwise


def test_the_members_are_listed_once_per_module_not_once_per_call(runs):
    # Shipped (Triton 3.9, 6 rows): 73 listings after one launch, 149 after two, 377 after five. Installed: 7,
    # then 8 once the attributes a swap leaves behind (a combine function's) have been seen, and no more.
    shipped, installed = runs["shipped"]["scans"], runs["installed"]["scans"]
    assert shipped[4] > shipped[1] >= 2 * 6 * 2              # shipped: a listing per swap, per row and reduction
    assert installed[4] == installed[1] <= 10                # installed: a few modules and classes, a state each


def test_a_name_seen_once_is_kept_and_a_changed_module_is_listed_again():
    def builtin(f):
        f.is_builtin = True
        return f

    def is_builtin(member):
        return getattr(member, "is_builtin", False)
    pkg = types.SimpleNamespace(load=builtin(lambda: 0), store=builtin(lambda: 0), helper=lambda: 0)
    assert interpret.builtin_names(pkg, is_builtin) == ("load", "store")
    pkg.load = lambda: 1                                     # swapped: same size, no new listing; still visited
    assert interpret.builtin_names(pkg, is_builtin) == ("load", "store")
    del pkg.helper                                           # names never seen together: listed again
    assert interpret.builtin_names(pkg, is_builtin) == ("load", "store")
    pkg.where = builtin(lambda: 0)                           # a new attribute: listed again, the union kept
    assert interpret.builtin_names(pkg, is_builtin) == ("load", "store", "where")


def test_an_index_swap_that_refuses_a_one_element_array_is_mended():
    """Triton 3.6's interpreter swaps `__index__` for `int(data)`, which NumPy 2 refuses for the one-element array
    that holds a scalar argument (`range(0, n_cols, BLOCK)`); the swap passes through squeezed. Other swaps, and an
    index swap that works (Triton 3.9's), pass unchanged."""
    import numpy as np

    class Recorder:
        def __init__(self):
            self.swaps = {}

        def set_attr(self, obj, name, value):
            self.swaps[name] = value

    def shipped_3_6(self):
        return int(self.handle.data)

    def shipped_3_9(self):
        return int(self.handle.data.squeeze())

    def held(value):
        return types.SimpleNamespace(handle=types.SimpleNamespace(data=np.array([value], dtype=np.int32)))
    assert interpret.refuses_one_element(shipped_3_6) and not interpret.refuses_one_element(shipped_3_9)
    scope = Recorder()
    mend = interpret._IndexMend(scope)
    mend.set_attr(object, "__index__", shipped_3_6)
    mend.set_attr(object, "__repr__", repr)
    assert scope.swaps["__index__"] is not shipped_3_6 and scope.swaps["__index__"](held(256)) == 256
    assert range(0, 512, 128)[scope.swaps["__index__"](held(1))] == 128
    assert scope.swaps["__repr__"] is repr
    mend.set_attr(object, "__index__", shipped_3_9)
    assert scope.swaps["__index__"] is shipped_3_9


def test_a_types_numpy_type_is_the_shipped_ones_for_every_type():
    """np_dtype_memo answers each Triton type as the interpreter's own function does: every scalar type, blocks of
    them, pointers, blocks of pointers, whichever is asked first; an unknown type fails as it does."""
    import triton.language as tl
    import triton.runtime.interpreter as it
    shipped = getattr(it._get_np_dtype, "__wrapped__", None) or it._get_np_dtype
    memo = interpret.np_dtype_memo(shipped)
    scalars = [v for v in vars(tl).values() if type(v) is tl.dtype]
    assert len(scalars) > 10
    types_ = []
    for t in scalars:
        types_ += [t, tl.block_type(t, [4]), tl.block_type(t, [2, 8]), tl.pointer_type(t),
                   tl.block_type(tl.pointer_type(t), [4])]
    answered = 0
    for t in types_ + types_[::-1]:
        try:
            want = shipped(t)
        except KeyError:
            with pytest.raises(KeyError):
                memo(t)
            continue
        assert memo(t) == want, t
        answered += 1
    assert answered > 40


def test_the_overflow_checks_are_turned_off_only_where_device_assert_drops_them():
    """Each integer add, sub and mul of the interpreter runs Triton's overflow check, which ends in a device_assert
    that drops the assertion without `debug`: install turns the checks off (Triton's `sanitize_overflow`) only where
    device_assert is seen to drop it, never with `debug`, nor for a device_assert that asserts whatever the options
    (then the checks are work that can fail a kernel, and stay)."""
    import dataclasses
    import triton.runtime.interpreter as it
    from triton.language.semantic import TritonSemantic
    options = getattr(getattr(it, "interpreter_builder", None), "options", None)
    if not dataclasses.is_dataclass(options) or not hasattr(options, "sanitize_overflow"):
        pytest.skip("this Triton's interpreter has no overflow-check option")
    shipped = dataclasses.replace(options, sanitize_overflow=True, debug=False)
    assert interpret.overflow_checks_are_dead(types.SimpleNamespace(options=shipped))
    debug = dataclasses.replace(shipped, debug=True)
    assert not interpret.overflow_checks_are_dead(types.SimpleNamespace(options=debug))

    class Asserting(TritonSemantic):   # a device_assert that asserts whatever the options say
        def device_assert(self, cond, msg, mask):
            return self.builder.create_assert(cond.handle, msg)
    assert not interpret.overflow_checks_are_dead(types.SimpleNamespace(options=shipped), Asserting)
