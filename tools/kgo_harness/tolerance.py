"""The tolerance policy, in one place: what atol/rtol/max_rel_err a verdict uses and why. Standard library only
(the supervisor may import it without torch).

Order of precedence, each step replacing the one before for the keys it names:
  1. by dtype: the lowest precision among the case's floating inputs and the requested dtype;
  2. by the precision the op computes in: a contraction (the reference's matmul, conv, attention) accumulates
     error with its reduction length, so its atol is scaled by the reference's RMS magnitude, and an fp32
     contraction may run on TF32 tensor cores (Triton's default input_precision, torch's allow_tf32) unless the
     problem asks for IEEE. Only the problem decides this: the kernel's own text never widens its tolerance;
  3. a format's own stated tolerance (the harness its authors use: KernelBench's per-precision tolerance, a
     SOL-ExecBench workload's `tolerance`, an opus24 test's `torch.allclose(atol=, rtol=)`). It is relative to
     that harness's reference, run in the problem's dtype with torch's defaults; where that reference itself
     computes on TF32 (a cuDNN convolution: `torch.backends.cudnn.allow_tf32` defaults to True), kgo's exact
     reference would fail the reference itself, so the stated values are floored at TF32's;
  4. ref.py's module-level ATOL/RTOL/MAX_REL_ERR (upper or lower case: fmh66's checker reads `atol`/`rtol`);
  5. the request (--atol/--rtol).
The result's `tolerance` carries `source` (the last step that set a value: default, policy, format, ref.py,
request) and `basis` (the facts behind it, in words)."""
import re

# (atol, rtol, max_rel_err). float32 follows the seed's correctness_check (atol 1e-4, rtol 1e-3); half types
# follow torchbench/KernelBench (1e-2); TF32 keeps a 10-bit mantissa like float16; fp8 is looser still.
BY_DTYPE = {
    "float64": (1e-7, 1e-7, 1e-7),
    "float32": (1e-4, 1e-3, 1e-3),
    "tfloat32": (1e-2, 1e-2, 1e-2),
    "float16": (1e-2, 1e-2, 1e-2),
    "bfloat16": (2e-2, 2e-2, 2e-2),
    "float8_e4m3fn": (1.25e-1, 1.25e-1, 1e-1),
    "float8_e5m2": (2.5e-1, 2.5e-1, 2e-1),
}
INTEGER = (0.0, 0.0, 0.0)
# Coarser precision ranks higher: the loosest input decides.
RANK = {"float64": 0, "float32": 1, "tfloat32": 2, "float16": 3, "bfloat16": 4, "float8_e4m3fn": 5,
        "float8_e5m2": 6}
KEYS = ("atol", "rtol", "max_rel_err")

_IEEE = re.compile(r"input_precision\s*=\s*['\"]ieee['\"]|allow_tf32\s*=\s*False|"
                   r"set_float32_matmul_precision\(\s*['\"]highest['\"]")
_CONV_CALL, _CONV_MODULE = r"conv[123]d|conv_transpose[123]d", r"Conv[123]d|ConvTranspose[123]d"
_CONTRACTION_REF = re.compile(rf"\b(matmul|mm|bmm|addmm|baddbmm|einsum|linear|{_CONV_CALL}|"
                              rf"scaled_dot_product_attention|tensordot)\s*\(|[\w)\]][ \t]*@[ \t]*[\w(]|\bnn\.(Linear|"
                              rf"{_CONV_MODULE}|MultiheadAttention)\b")
_CONV_REF = re.compile(rf"\b({_CONV_CALL})\s*\(|\bnn\.({_CONV_MODULE})\b")
_CUDNN_IEEE = re.compile(r"cudnn\.allow_tf32\s*=\s*False")
_MATMUL_TF32 = re.compile(r"matmul\.allow_tf32\s*=\s*True|set_float32_matmul_precision\(\s*['\"](high|medium)['\"]")


def by_dtype(name):
    if name in BY_DTYPE:
        return BY_DTYPE[name]
    if name.startswith(("int", "uint", "bool")):
        return INTEGER
    return BY_DTYPE["float32"]


def coarsest(names):
    """The lowest-precision floating dtype among `names` (torch dtype names), or None."""
    floats = [n for n in names if n in RANK]
    return max(floats, key=RANK.get) if floats else None


def reference_family(reference_text):
    return "contraction" if _CONTRACTION_REF.search(reference_text or "") else None


def problem_precision(reference_text, family, dtype_name):
    """"tfloat32" where the problem lets an fp32 contraction run on TF32 tensor cores (its reference does not ask
    for IEEE: `allow_tf32 = False`, `input_precision="ieee"`, matmul precision "highest"), else None. Read from the
    problem's files only: a kernel that names `tl.dot` in a comment gets nothing by it."""
    if dtype_name != "float32" or family != "contraction" or _IEEE.search(reference_text or ""):
        return None
    return "tfloat32"


def reference_precision(reference_text, dtype_name):
    """"tfloat32" where the problem's own reference, run in fp32 with torch's defaults, computes on TF32: a cuDNN
    convolution unless it sets `cudnn.allow_tf32 = False`, a matmul only where it turns TF32 on (torch's matmul
    default is IEEE); else None. What a format's stated tolerance is relative to (decide, step 3)."""
    text = reference_text or ""
    if dtype_name != "float32":
        return None
    if _CONV_REF.search(text) and not _CUDNN_IEEE.search(text):
        return "tfloat32"
    return "tfloat32" if _MATMUL_TF32.search(text) else None


def ieee_float32_reference(tol, dtype_name):
    """Whether a reference computed in fp32 without TF32 is exact enough to judge against `tol` in place of a
    float64 one: an fp32 problem whose relative bounds are TF32's or looser (1e-2, e.g. floored at TF32's in step
    3). IEEE fp32 stays within about 1e-5 of the exact result even over long reductions, three orders inside such
    bounds; it spares the slow float64 paths of cuDNN (a 3-D transposed convolution: 2.8 s in float64 against
    0.19 s in IEEE fp32 on an H200). A tighter tolerance keeps the float64 reference."""
    bound = BY_DTYPE["tfloat32"][1]
    return dtype_name == "float32" and min(tol.get("rtol", 0.0), tol.get("max_rel_err", 0.0)) >= bound


def decide(dtype_name, input_dtypes=(), family=None, precision=None, op_scale=1.0, stated=None, module=None,
           request=None, stated_relative_to=None):
    """The tolerance dict: atol, rtol, max_rel_err, atol_scale ("absolute" or "reference_rms"), source, basis.
    `stated` is (dict of keys, where) from the format; `module` {key: value} from ref.py; `request` likewise;
    `stated_relative_to`: the precision the format's own reference computes in (reference_precision)."""
    basis = []
    base = dtype_name
    coarse = coarsest(list(input_dtypes) + [dtype_name])
    if coarse and coarse != dtype_name and RANK.get(coarse, 0) > RANK.get(dtype_name, 0):
        base = coarse
        basis.append(f"{coarse} inputs")
    else:
        basis.append(f"{dtype_name}")
    if precision and RANK.get(precision, 0) > RANK.get(base, 0):
        base = precision
        basis.append("fp32 contraction: TF32 tensor cores allowed (the problem does not ask for IEEE)"
                     if precision == "tfloat32" else f"computed in {precision}")
    atol, rtol, rel = by_dtype(base)
    tol = {"atol": atol * op_scale, "rtol": rtol * op_scale, "max_rel_err": rel * op_scale,
           "atol_scale": "absolute"}
    source = "default" if base == dtype_name and op_scale == 1.0 else "policy"
    if op_scale != 1.0:
        basis.append(f"op scale x{op_scale:g}")
    if family == "contraction" and base != "float64":
        tol["atol_scale"] = "reference_rms"
        basis.append("contraction: atol scaled by the reference's RMS")
        source = "policy"
    if stated and stated[0]:
        vals, where = stated
        tol.update({k: float(v) for k, v in vals.items() if k in KEYS})
        if "max_rel_err" not in vals and "rtol" in vals:
            # The format checks elementwise only: kgo's norm criterion is never the stricter of the two.
            tol["max_rel_err"] = max(float(vals["rtol"]), tol["max_rel_err"])
        tol["atol_scale"] = "absolute"
        source = "format"
        basis.append(f"stated by {where}")
        if stated_relative_to and RANK.get(stated_relative_to, 0) > RANK.get(dtype_name, 0):
            floor = dict(zip(KEYS, by_dtype(stated_relative_to)))
            tol.update({k: max(tol[k], floor[k]) for k in KEYS})
            basis.append(f"floored at {stated_relative_to}'s: that harness's reference computes on TF32 "
                         "(cuDNN's default for a convolution), kgo's does not")
    if module:
        tol.update({k: float(v) for k, v in module.items() if k in KEYS})
        tol["atol_scale"] = "absolute"
        source = "ref.py"
        basis.append("ref.py " + ", ".join(f"{k}={v:g}" for k, v in module.items()))
    for key in KEYS:
        if request and request.get(key) is not None:
            tol[key] = float(request[key])
            tol["atol_scale"] = "absolute"
            source = "request"
    if source == "request":
        basis.append("--atol/--rtol/--max-rel-err")
    tol["source"] = source
    tol["basis"] = "; ".join(basis)
    return tol


def effective_atol(tol, ref_rms):
    """The atol a comparison applies: scaled by max(1, RMS of the reference) for a contraction."""
    if tol.get("atol_scale") == "reference_rms" and ref_rms is not None and ref_rms > 1.0:
        return tol["atol"] * ref_rms
    return tol["atol"]
