"""The CUDA contract: parse `extern "C" void solve(...)`, compile kernel.cu with nvcc into a shared library
cached by content hash, and call it through ctypes. Pointers to const are inputs, other pointers outputs."""
import ctypes
import hashlib
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass

POINTEE = {
    "float": "float32", "double": "float64", "half": "float16", "__half": "float16",
    "__nv_bfloat16": "bfloat16", "nv_bfloat16": "bfloat16", "int": "int32", "int32_t": "int32",
    "unsigned int": "int32", "uint32_t": "int32", "long": "int64", "long long": "int64",
    "int64_t": "int64", "unsigned long": "int64", "uint64_t": "int64", "short": "int16",
    "int16_t": "int16", "unsigned short": "int16", "char": "int8", "int8_t": "int8",
    "signed char": "int8", "unsigned char": "uint8", "uint8_t": "uint8", "bool": "bool",
}
SCALAR = {
    "int": ctypes.c_int, "int32_t": ctypes.c_int32, "unsigned int": ctypes.c_uint, "unsigned": ctypes.c_uint,
    "uint32_t": ctypes.c_uint32, "long": ctypes.c_long, "long long": ctypes.c_longlong,
    "int64_t": ctypes.c_int64, "unsigned long": ctypes.c_ulong, "uint64_t": ctypes.c_uint64,
    "size_t": ctypes.c_size_t, "short": ctypes.c_short, "unsigned short": ctypes.c_ushort,
    "char": ctypes.c_char, "unsigned char": ctypes.c_ubyte, "bool": ctypes.c_bool,
    "float": ctypes.c_float, "double": ctypes.c_double,
}
QUALIFIERS = {"const", "__restrict__", "__restrict", "restrict", "volatile"}


class ContractError(Exception):
    pass


@dataclass
class Param:
    name: str
    base: str          # C type without qualifiers
    pointer: bool
    const: bool        # pointer to const: an input

    @property
    def is_float_scalar(self):
        return not self.pointer and self.base in ("float", "double")


def _strip_comments(src):
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    return re.sub(r"//[^\n]*", " ", src)


def parse_solve(source, inputs=None, outputs=None):
    """The parameters of `extern "C" void solve(...)`; pointers named in `inputs`/`outputs` (--inputs,
    --outputs) are those, the rest follow `const`. Raises ContractError naming the fix."""
    return assign_roles(parse_params(source), inputs or [], outputs or [])


def parse_params(source):
    """solve()'s parameters as written (`const` as declared, no roles decided). Raises ContractError."""
    src = _strip_comments(source)
    if not re.search(r'extern\s+"C"', src):
        raise ContractError('kernel.cu has no extern "C" block; declare `extern "C" void solve(...)` so '
                            "the harness can find it with ctypes")
    m = re.search(r"\bvoid\s+solve\s*\(([^)]*)\)", src)
    if not m:
        raise ContractError('kernel.cu defines no `void solve(...)`; add `extern "C" void solve(<pointers>, '
                            '<sizes>)` that launches your kernel')
    params = []
    text = m.group(1).strip()
    if not text or text == "void":
        raise ContractError("solve() takes no parameters; it needs at least one output pointer")
    for raw in text.split(","):
        raw = raw.strip()
        star = raw.find("*")
        pointer = star >= 0
        head = raw[:star] if pointer else raw
        tail = raw[star:].replace("*", " ") if pointer else ""
        tokens = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", head)
        tail_tokens = [t for t in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", tail) if t not in QUALIFIERS]
        if pointer:
            if not tail_tokens:
                raise ContractError(f"solve() parameter '{raw}' has no name; name every parameter")
            name = tail_tokens[-1]
            const = "const" in tokens
            base = " ".join(t for t in tokens if t not in QUALIFIERS)
        else:
            if len(tokens) < 2:
                raise ContractError(f"solve() parameter '{raw}' has no name; name every parameter")
            name = tokens[-1]
            const = False
            base = " ".join(t for t in tokens[:-1] if t not in QUALIFIERS)
        if pointer and base not in POINTEE:
            raise ContractError(f"solve() parameter '{name}' points to '{base}', which the harness cannot "
                                f"allocate; use one of {', '.join(sorted(POINTEE))}")
        if not pointer and base not in SCALAR:
            raise ContractError(f"solve() parameter '{name}' has scalar type '{base}', which the harness "
                                f"cannot pass; use int, long, size_t, float or double")
        params.append(Param(name=name, base=base, pointer=pointer, const=const))
    return params


def assign_roles(params, inputs, outputs):
    """Marks each pointer an input (`const` true) or an output from the names given, else its `const`."""
    pointers = [p.name for p in params if p.pointer]
    unknown = [n for n in list(inputs) + list(outputs) if n not in pointers]
    if unknown:
        raise ContractError(f"--inputs/--outputs name {', '.join(unknown)}, which solve() has no pointer "
                            f"parameter for (it has {', '.join(pointers)})")
    both = set(inputs) & set(outputs)
    if both:
        raise ContractError(f"{', '.join(sorted(both))} given both as input and output; name each once")
    for p in params:
        if p.name in inputs:
            p.const = True
        elif p.name in outputs or (inputs and p.pointer and not outputs):
            p.const = False
        elif outputs and p.pointer and not p.const:
            p.const = True  # --outputs names every output; the other pointers are inputs
    if not any(p.pointer and p.const for p in params):
        guess = pointers[-1] if len(pointers) > 1 else pointers[0]
        raise ContractError(f"solve({', '.join(pointers)}) marks no pointer `const` and no setup() in ref.py "
                            "lists its outputs, so kgo cannot tell the inputs from the outputs: pass "
                            f"--outputs {guess} (the pointers solve() writes; the others are inputs), or mark "
                            "inputs `const T*`")
    if not any(p.pointer and not p.const for p in params):
        raise ContractError("solve() has no non-const pointer, so nothing is an output; mark inputs "
                            "`const T*` and outputs `T*`, or pass --outputs")
    return params


def flat_numel(ints):
    """Elements of every flat buffer when --dim fixes all of solve()'s integers: the product of the two largest
    (one: itself), at most 2^28, as fmh66's checker sizes its buffers; not the product of all (a 4096^3 GEMM's).
    None without integers."""
    if not ints:
        return None
    top = sorted(ints, reverse=True)
    return min(top[0] * top[1] if len(top) > 1 else top[0], 1 << 28)


def buffer_numel(name, sizes, scalars, default):
    """Elements of pointer `name`: `sizes[name]` (an expression of the integer parameters, --size A=M*K),
    else `default`."""
    expr = sizes.get(name)
    if expr is None:
        return default
    import ast
    tree = ast.parse(expr, mode="eval")
    allowed = (ast.Expression, ast.BinOp, ast.Name, ast.Load, ast.Constant, ast.Add, ast.Sub, ast.Mult,
               ast.FloorDiv, ast.Div, ast.Mod, ast.Pow, ast.UnaryOp, ast.USub)
    bad = [type(n).__name__ for n in ast.walk(tree) if not isinstance(n, allowed)]
    if bad:
        raise ContractError(f"--size {name}={expr}: only + - * / // % ** over integer parameters are allowed")
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    missing = sorted(names - set(scalars))
    if missing:
        raise ContractError(f"--size {name}={expr} uses {', '.join(missing)}, which is not an integer "
                            f"parameter of solve() (it has {', '.join(sorted(scalars)) or 'none'})")
    value = int(eval(compile(tree, "--size", "eval"), {"__builtins__": {}}, dict(scalars)))
    if value < 1:
        raise ContractError(f"--size {name}={expr} gives {value} elements; it must be at least 1")
    return value


def nvcc_version(path):
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30).stdout
    except Exception:
        return None
    m = re.search(r"release\s+([0-9.]+),\s*V([0-9.]+)", out)
    return m.group(2) if m else out.strip().splitlines()[-1] if out.strip() else None


FLAGS = ["-O3", "-lineinfo", "-shared", "-Xcompiler", "-fPIC"]


def compile_so(source_path, arch, cache_root, nvcc):
    """Path of the shared library for kernel.cu, compiled at most once per content/arch/nvcc version, with the
    nvcc kgo resolved (the request's "tools"; the harness searches for none). Returns (path, compiled_now, seconds)."""
    if not nvcc:
        raise ContractError("kgo found no nvcc (it searches PATH, then $CUDA_PATH, $CUDA_HOME, $CUDA_ROOT and "
                            "/usr/local/cuda: core/tools.hpp); install the CUDA toolkit or add it to PATH to use "
                            "the CUDA contract")
    with open(source_path, "rb") as f:
        source = f.read()
    version = nvcc_version(nvcc) or "unknown"
    key = hashlib.sha256(source + f"\0{arch}\0{version}\0{' '.join(FLAGS)}".encode()).hexdigest()
    out_dir = cache_root / "cuda"
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{key}.so"
    if target.is_file():
        return target, False, 0.0
    import time
    start = time.perf_counter()
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=out_dir)
    os.close(fd)
    cmd = [nvcc, f"-arch={arch}", *FLAGS, "-o", tmp, str(source_path)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        os.unlink(tmp)
        raise ContractError(f"nvcc failed ({' '.join(cmd)}):\n{proc.stderr.strip()[-3000:]}")
    os.replace(tmp, target)
    return target, True, time.perf_counter() - start


def load_solve(so_path, params):
    lib = ctypes.CDLL(str(so_path))
    fn = lib.solve
    fn.restype = None
    fn.argtypes = [ctypes.c_void_p if p.pointer else SCALAR[p.base] for p in params]
    return fn, lib


def scalar_values(params, shape, args):
    """Values of the scalar parameters: args by name; else integer scalars are the shape's axes (as many as
    the shape has) or its element count (a single one); float scalars default to 1.0 (eps: 1e-5)."""
    import math
    values = {}
    ints = [p for p in params if not p.pointer and not p.is_float_scalar and p.name not in args]
    for p in params:
        if p.pointer:
            continue
        if p.name in args:
            values[p.name] = args[p.name]
        elif p.is_float_scalar:
            values[p.name] = 1e-5 if "eps" in p.name.lower() else 1.0
    if ints:
        if len(ints) == len(shape):
            for p, dim in zip(ints, shape):
                values[p.name] = dim
        elif len(ints) == 1:
            values[ints[0].name] = math.prod(shape)
        else:
            names = ", ".join(p.name for p in ints)
            example = (list(shape) + [shape[-1]] * len(ints))[:len(ints)]
            raise ContractError(f"solve() has integer parameters {names} that match neither the shape "
                                f"{list(shape)} nor its element count: pass --shape "
                                f"{'x'.join(map(str, example))} (one axis per parameter, in that order), or "
                                "give ref.py a setup() whose integer defaults name them")
    return values
