"""The problem's setup() for the formats whose kernel file carries one (seed, fmh66), loaded in the judge.

`kgo init` stores the baseline kernel file, whole, as the workspace's problem file (`problem.py`, named in
kgo.json, committed with ref.py, stamped and refused when changed as ref.py is); kgo sends its path as the
request's `problem`. The judge makes every case's inputs with that file's setup(); the candidate's setup() is
never called to make inputs.

Why the whole file is stored and not only setup(): init runs no Python, and cutting setup() out in C++ would
need Python's grammar; the stored bytes are exactly the baseline the user gave (anyone can compare them with
the init commit's kernel); and setup() may use any helper, constant or import of its file. What runs here is
narrower than what is stored: the judge executes setup() and only the top-level statements it needs,
transitively (the imports, assignments, functions and classes whose names it uses), never the baseline's
kernels, launches or other module-level work (a Triton import setup() does not use, a load_inline build)."""
import ast
import inspect
import pathlib
import sys
import types

_LOADED = {}


class ProblemFileError(Exception):
    """The problem file cannot give setup(); the message names the fix (contracts.problem_setup: culprit setup)."""


def _binds(node):
    """Names a top-level statement binds ("*" for a star import)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name.split(".")[0]) for a in node.names}
    out = set()
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)):
            out.add(child.id)
        else:
            out |= _binds(child)
    return out


def _uses(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def needed(source, entry="setup", filename="problem.py"):
    """The code object of `entry` and the top-level statements it needs, in file order."""
    tree = ast.parse(source, filename)
    body = tree.body
    binds = [_binds(s) for s in body]
    if not any(entry in b for b in binds):
        raise LookupError(f"{filename} defines no {entry}()")
    want, keep = {entry}, set()
    grew = True
    while grew:
        grew = False
        for i, stmt in enumerate(body):
            if i not in keep and (binds[i] & want or "*" in binds[i] or
                                  (isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__")):
                keep.add(i)
                want |= _uses(stmt)
                grew = True
    return compile(ast.Module(body=[body[i] for i in sorted(keep)], type_ignores=[]), filename, "exec")


def setup_of(path, sha):
    """The problem file's setup() (executed once per content hash); ProblemFileError names the fix."""
    key = (str(path), sha)
    if key in _LOADED:
        return _LOADED[key]
    path = pathlib.Path(path)
    try:
        code = needed(path.read_text(errors="replace"), "setup", str(path))
    except (SyntaxError, LookupError, OSError) as e:
        raise ProblemFileError(f"the problem file {path.name} cannot give setup(): {e}; restore it from the "
                               f"init commit (git checkout <init commit> -- {path.name})") from e
    name = f"kgo_problem_{sha[:16]}"
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)
    except Exception as e:
        del sys.modules[name]
        raise ProblemFileError(f"running the problem file {path.name}'s setup() definitions failed: "
                               f"{type(e).__name__}: {e}") from e
    fn = module.__dict__.get("setup")
    if not callable(fn):
        raise ProblemFileError(f"the problem file {path.name} defines no callable setup()")
    _LOADED[key] = fn
    return fn


def takes(fn, name):
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
