"""The stress policy: how later trials of a case take inputs beyond the problem's plain distribution, so that a
kernel right only on N(0,1) (a softmax without max-subtraction, a norm without a stable variance, a kernel
that reads only the low bits of a scale) fails. Trial 0 always keeps the plain inputs.

- Op contract (`for_op`, the op table BY_OP): the first input is redrawn per op family; both processes draw
  the same bytes from the seed, so a stress must keep the op's reference finite (tests/cli/test_op_catalog.py).
- KernelBench problems (`scale`, `unscale`: their own get_inputs() distributions, often U(0,1) for a domain
  they need): trials from the third on scale the floating inputs by 4, unless the reference then turns
  non-finite (contract_kernelbench.py keeps the plain inputs then).
- Inputs the judge makes from a problem (`named`: the seed and fmh66 problem's setup()): every floating input
  that is not an output buffer is transformed, trial by trial, through GENERIC; the judge then holds the
  reference against the kernel's dtype (`keeps_range`): where the stressed inputs leave the problem's domain
  (the reference turns non-finite there), the case falls back to the plain inputs and says so in the warnings.
  A ref.py may narrow this: `STRESS = False` (none) or `STRESS = ["x", ...]` (only those inputs)."""
from kgo_harness import lazy

torch = lazy.module("torch", globals())   # imported on first use: the op catalog's texts are read without torch


def _uniform(x, gen, lo, hi):
    u = torch.rand(x.shape, generator=gen, device=x.device, dtype=torch.float32)
    return (u * (hi - lo) + lo).to(x.dtype)


def _exp_overflow(x, gen, trial):
    if trial % 3 == 1:   # beyond exp's float32 range (88.7): only a max-subtracting kernel survives
        return (x.float() * 30.0 + 40.0).to(x.dtype)
    masked = x.clone()   # trial 2: -inf entries (never a whole row: the first column stays finite)
    drop = torch.rand(x.shape, generator=gen, device=x.device) < 0.1
    drop[..., 0] = False
    return masked.masked_fill(drop, float("-inf"))


def _magnitudes(x, gen, trial):
    if trial % 3 == 1:
        return _uniform(x, gen, -100.0, 100.0)
    scale = torch.pow(10.0, _uniform(x, gen, -3.0, 3.0).float())   # trial 2: mixed scales and signs
    return (x.float() * scale).to(x.dtype)


def _row_scales(x, gen, trial):
    rows = list(x.shape[:-1]) + [1]
    scale = torch.pow(10.0, torch.rand(rows, generator=gen, device=x.device) * 4.0 - 2.0)
    offset = 3.0 if trial % 3 == 1 else -1.0
    return (x.float() * scale + offset * scale).to(x.dtype)


# How later trials draw an op's first input beyond N(0,1). Every op of the table is here or in PLAIN, which
# says why it keeps its plain inputs (tools/tests/test_inputs.py holds the table to that).
_CANCELS = "accumulates with cancellation: large mixed values fail an honest float32 sum on atol, not a cheat"
PLAIN = {"sum": _CANCELS, "cumsum": _CANCELS, "matmul": _CANCELS, "matvec": _CANCELS, "diag_matmul": _CANCELS,
         "prod": "its inputs stay near 1 so that long rows keep in range",
         "kl_div": "its inputs are log-probabilities and probabilities",
         "hinge_loss": "its targets are +-1"}
BY_OP = {"softmax": _exp_overflow, "log_softmax": _exp_overflow, "layer_norm": _row_scales,
         "rms_norm": _row_scales, "l2_norm": _row_scales, "l1_norm": _row_scales,
         "frobenius_norm": _row_scales, "group_norm": _row_scales, "instance_norm": _row_scales}
for _name in ("gelu", "relu", "silu", "add", "mul", "gelu_tanh", "leaky_relu", "sigmoid", "tanh", "elu", "selu",
              "hardsigmoid", "hardtanh", "softplus", "softsign", "max", "min", "argmax", "argmin", "batch_norm",
              "mse_loss", "huber_loss"):
    BY_OP[_name] = _magnitudes
TEXT = {_exp_overflow: "trial 1: 30 N(0,1) + 40 (past exp overflow); trial 2: 10% -inf entries",
        _magnitudes: "trial 1: U(-100, 100); trial 2: N(0,1) x 10^U(-3,3)",
        _row_scales: "trials 1, 2: rows scaled by 10^U(-2,2) with an offset"}


def for_op(op, args, trial, gen):
    """`args` with the first input redrawn for `trial` (see BY_OP); float inputs only."""
    fn = BY_OP.get(op.name)
    if fn is None or trial % 3 == 0 or not args or not isinstance(args[0], torch.Tensor) \
            or not args[0].dtype.is_floating_point or args[0].numel() == 0:
        return args
    return [fn(args[0], gen, trial)] + list(args[1:])


def for_op_text(op, trial):
    """What for_op does to the first input on `trial`, in words; None where it keeps the plain inputs."""
    fn = BY_OP.get(op.name)
    return TEXT[fn] if fn is not None and trial % 3 != 0 else None


# --- KernelBench problems ----------------------------------------------------------------------------------
KERNELBENCH_FACTOR = 4.0
KERNELBENCH_TEXT = f"get_inputs()' floating values x {KERNELBENCH_FACTOR:g}, beyond the problem's own distribution"


def scaled(trial):
    """Whether a KernelBench case of this trial is scaled (trials from the third on)."""
    return trial >= 2


def scale(args, factor=KERNELBENCH_FACTOR):
    """Positional arguments with every floating tensor multiplied by `factor` (`unscale`: divided)."""
    return [a * factor if isinstance(a, torch.Tensor) and a.dtype.is_floating_point else a for a in args]


def unscale(args, factor=KERNELBENCH_FACTOR):
    return [a / factor if isinstance(a, torch.Tensor) and a.dtype.is_floating_point else a for a in args]


# --- inputs the judge makes from a problem's setup() ------------------------------------------------------
def _exp_edge(x, gen):
    return x.float() * 30.0 + 40.0


def _mixed_scales(x, gen):
    return x.float() * torch.pow(10.0, _uniform(x.float(), gen, -3.0, 3.0))


def _large_signed(x, gen):
    sign = torch.where(torch.rand(x.shape, generator=gen, device=x.device) < 0.5, -1.0, 1.0)
    return x.float() * 100.0 * sign


# trial % 4 -> (name, transform of the problem's own values); trial 0 keeps them.
GENERIC = (None, ("30 x + 40: near and past exp's float32 overflow", _exp_edge),
           ("x * 10^U(-3,3): scales over six decades", _mixed_scales),
           ("100 x with random signs: large magnitudes, mixed signs", _large_signed))


def chosen(ref_module):
    """The ref.py's narrowing of the stressed inputs: None (all floating inputs), a set of names, or False."""
    value = getattr(ref_module, "STRESS", None) if ref_module is not None else None
    if value is False:
        return False
    if isinstance(value, (list, tuple, set)):
        return {str(v) for v in value}
    return None


def named(inputs, outputs, trial, seed, only=None):
    """A copy of `inputs` (a name -> value dict) with its floating non-output tensors stressed for `trial`,
    and the stress's description; (None, None) when the trial keeps the plain inputs."""
    kind = GENERIC[trial % len(GENERIC)]
    if kind is None or only is False:
        return None, None
    label, fn = kind
    out, touched = dict(inputs), []
    for name, value in inputs.items():
        if name in outputs or not isinstance(value, torch.Tensor) or not value.dtype.is_floating_point \
                or value.numel() == 0 or (only is not None and name not in only):
            continue
        gen = torch.Generator(device=value.device)
        gen.manual_seed((int(seed) * 1_000_003 + trial * 7919 + len(touched)) % (2 ** 63))
        out[name] = fn(value, gen).to(value.dtype)
        touched.append(name)
    if not touched:
        return None, None
    return out, f"{label} ({', '.join(touched)})"


def keeps_range(refs, dtype):
    """Whether every floating reference output is finite in the kernel's dtype (the problem's domain at the
    stressed inputs: a float64 reference beyond float32's range is no answer a float32 kernel can give)."""
    for r in refs:
        if not isinstance(r, torch.Tensor) or not r.dtype.is_floating_point or r.numel() == 0:
            continue
        limit = torch.finfo(dtype).max if dtype.is_floating_point else torch.finfo(torch.float64).max
        if not bool((r.abs() <= limit).all()):   # NaN compares false: also caught
            return False
    return True


def settled_reference(compute, dtype, stressed, fall_back, attainable=None):
    """The reference of a case whose inputs may be stressed: compute() once; where the stressed inputs leave the
    problem's domain (the reference is not finite in `dtype`, or raises) or ask more than the kernel's declared
    arithmetic can give (`attainable(ref)`: None, or why), fall_back(why) restores the plain inputs and the
    reference is computed again on them. The one fallback rule of every named-input contract."""
    if not stressed:
        return compute()
    try:
        ref = compute()
        why = None if keeps_range(ref, dtype) else \
            f"the reference is not finite in {str(dtype).replace('torch.', '')}"
        if why is None and attainable is not None:
            why = attainable(ref)
    except Exception as e:
        why = f"the reference raised {type(e).__name__}"
    if why is None:
        return ref
    fall_back(why)
    return compute()


def within(got, want, tol):
    """Whether every element of `got` is within the tolerance dict's atol (scaled by the reference's RMS where
    its atol_scale says so) + rtol x |want| of `want`: the element test of the judge's comparison, for the
    references it compares with each other here."""
    w = want.detach().to(torch.float64)
    g = got.detach().to(torch.float64).reshape(w.shape)
    atol = tol["atol"]
    if tol.get("atol_scale") == "reference_rms" and w.numel():
        atol *= max(1.0, float(w.pow(2).mean().sqrt()))
    return bool(((g - w).abs() <= atol + tol["rtol"] * w.abs()).all())
