"""Triton's CPU interpreter (TRITON_INTERPRET=1, `--device cpu`) without the work it repeats on every call.

The interpreter swaps the builtins of triton.language for interpreted ones before it runs a kernel, and again on
every call of a @triton.jit function from inside one (tl.sum's and tl.max's combine functions, a kernel's own
helpers). Each swap lists every member of each module with `inspect.getmembers` to find the builtins: on the
example softmax that scan was half of the interpreted kernel's time. `install()` (in the kernel's process,
before any kernel is imported) keeps, per module or class, the names that have held a builtin, so a swap visits
only those; it patches exactly what the full scan would. A device call inside a launch whose language modules
the launch has swapped already (every combine function of a reduction, once per program) swaps nothing new: the
launch's swap left no builtin to find there and set the same helpers, which its restore puts back. That call
then skips the swap, which was a quarter of the example softmax's interpreted time after the scan's fix. The
NumPy type of a Triton type, which the interpreter works out on every operation from a table it builds anew each
time (8% of that time), is kept per type once worked out.

Every integer add, sub and mul also runs Triton's overflow check: the operation again in int64 and two comparisons,
then a device_assert, which drops the assertion unless the options ask for `debug`, never set in the interpreter's:
dead work, a quarter of the example softmax's interpreted time. Where device_assert is seen to drop it (asked with a
builder whose assert would raise), the interpreter's options turn the check off (`sanitize_overflow`), Triton's own
switch; the outputs are the same, bit for bit.

It also mends one swap of older interpreters (Triton 3.6, which torch 2.11 ships): a scalar argument used as an
index (`range(0, n_cols, BLOCK)`) is a one-element array there, and NumPy 2 refuses `int()` of it, so every
kernel with such a loop failed on the CPU. The index swap then squeezes the array first, as Triton 3.9's does."""
import dataclasses
import functools
import inspect
import types

_names = {}       # id(module or class) -> sorted names whose member was a builtin at some scan
_seen = {}        # id(...) -> the sets of its own attribute names at its full scans
_installed = False


def builtin_names(pkg, is_builtin):
    """The names of `pkg`'s members that are (or were, at an earlier scan) builtins. A full scan runs the first
    time and whenever `pkg`'s own attribute names are a set seen at no scan before (a swap of an inherited
    member adds one, its restore removes it: two sets alternate); the names only grow, so a name that a swap
    has replaced at the moment of a scan is still visited once it is restored."""
    key = id(pkg)
    own = vars(pkg).keys()
    seen = _seen.setdefault(key, [])
    if not any(own == names for names in seen):
        seen.append(frozenset(own))
        found = set(_names.get(key, ()))
        found.update(name for name, member in inspect.getmembers(pkg) if is_builtin(member))
        _names[key] = tuple(sorted(found))
    return _names[key]


def install():
    """Replaces the interpreter's scan, its device calls' swaps and its type table where this Triton has the shape
    each was written for; False where it has not even the scan's (the interpreter then runs as shipped)."""
    global _installed
    if _installed:
        return True
    try:
        import triton.runtime.interpreter as it
        from triton.language import core
    except Exception:
        return False
    if not (callable(getattr(it, "_patch_builtin", None)) and callable(getattr(it, "_patch_attr", None))
            and callable(getattr(core, "is_builtin", None))):
        return False

    def _patch_builtin(pkg, builder, scope):
        for name in builtin_names(pkg, core.is_builtin):
            member = getattr(pkg, name, None)
            if core.is_builtin(member):
                it._patch_attr(pkg, name, member, builder, scope)

    it._patch_builtin = _patch_builtin
    if all(callable(getattr(it, name, None)) for name in ("_patch_lang", "GridExecutor", "_LangPatchScope")):
        _skip_swapped_device_calls(it)
    if callable(getattr(it, "_get_np_dtype", None)):
        it._get_np_dtype = np_dtype_memo(it._get_np_dtype)
    if callable(getattr(it, "_patch_lang_tensor", None)):
        shipped = it._patch_lang_tensor
        it._patch_lang_tensor = lambda tensor, scope: shipped(tensor, _IndexMend(scope))
    builder = getattr(it, "interpreter_builder", None)
    if builder is not None and overflow_checks_are_dead(builder):
        builder.options = dataclasses.replace(builder.options, sanitize_overflow=False)
    _installed = True
    return True


def overflow_checks_are_dead(builder, semantic=None):
    """Whether `builder`'s integer overflow checks change nothing: its options have `sanitize_overflow` and no
    `debug`, and Triton's device_assert (of `semantic`, default TritonSemantic), where each check ends, returns
    without asserting for them: asked with a builder whose assert raises."""
    options = getattr(builder, "options", None)
    if not dataclasses.is_dataclass(options) or getattr(options, "debug", True) or \
            not getattr(options, "sanitize_overflow", False):
        return False
    try:
        if semantic is None:
            from triton.language.semantic import TritonSemantic as semantic

        def refuse(*args, **kwargs):
            raise AssertionError("asserted")
        probe = object.__new__(semantic)
        probe.builder = types.SimpleNamespace(options=options, create_assert=refuse)
        semantic.device_assert(probe, types.SimpleNamespace(handle=None), "overflow", None)
        return True
    except Exception:
        return False


def np_dtype_memo(shipped):
    """`shipped` (Triton type -> NumPy type) answered once per type: by its class and name (what Triton's type
    equality compares) and those of its element type; a type without them, or an error, goes to `shipped` as is."""
    memo = {}

    @functools.wraps(shipped)
    def _get_np_dtype(tt_dtype):
        element = getattr(tt_dtype, "element_ty", None)
        try:
            key = (type(tt_dtype), tt_dtype.name, type(element), getattr(element, "name", None))
            hash(key)
        except (AttributeError, TypeError):
            return shipped(tt_dtype)
        if key not in memo:
            memo[key] = shipped(tt_dtype)
        return memo[key]
    return _get_np_dtype


_launches = []   # per launch running now (innermost last): the language modules swapped since it began


def _langs(fn, it):
    """The language modules a swap for `fn` covers: those of triton.language and its core that its globals hold."""
    return {id(v) for v in fn.__globals__.values() if v is it.tl or v is it.tl.core}


def _skip_swapped_device_calls(it):
    """Wraps the interpreter's launch and its swap. Inside a launch nothing is restored until it ends (a device
    call's swap is never restored), so a swap whose modules were swapped since the launch began finds no builtin
    left in them and only sets the same helpers again: it is answered with an empty scope."""
    shipped_swap, shipped_launch = it._patch_lang, it.GridExecutor.__call__

    def _patch_lang(fn):
        langs = _langs(fn, it)
        if _launches and langs and langs <= _launches[-1]:
            return it._LangPatchScope()
        scope = shipped_swap(fn)
        if _launches:
            _launches[-1].update(langs)
        return scope

    def launch(self, *args, **kwargs):
        _launches.append(set())
        try:
            return shipped_launch(self, *args, **kwargs)
        finally:
            _launches.pop()

    it._patch_lang = _patch_lang
    it.GridExecutor.__call__ = launch


class _IndexMend:
    """A swap scope that passes every swap on, the index swap mended where it refuses a one-element array."""

    def __init__(self, scope):
        self.scope = scope

    def set_attr(self, obj, name, value):
        if name == "__index__" and _refuses(value):
            value = _squeezed_index
        self.scope.set_attr(obj, name, value)


_verdicts = {}    # the code of an interpreter's index swap -> refuses_one_element's answer


def _refuses(index):
    """refuses_one_element, asked once per code: the interpreter makes a new index swap (the same code) on each of
    its swaps, thousands of times in a kernel's run."""
    code = getattr(index, "__code__", None)
    if code is None:
        return refuses_one_element(index)
    if code not in _verdicts:
        _verdicts[code] = refuses_one_element(index)
    return _verdicts[code]


def refuses_one_element(index):
    """Whether an interpreter's `__index__` swap fails on a scalar held as a one-element array."""
    import numpy as np
    try:
        index(types.SimpleNamespace(handle=types.SimpleNamespace(data=np.array([3], dtype=np.int32))))
        return False
    except TypeError:
        return True


def _squeezed_index(self):
    return int(self.handle.data.squeeze())
