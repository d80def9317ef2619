"""What the CPU path (Triton interpreter) can and cannot vouch for: autotuned kernels run with their first
config (the interpreter has no driver to time configs on), and dtypes whose interpreter arithmetic is wrong
turn a verdict into UNTRUSTED with the reason, never a plain PASS or FAIL."""

# Dtypes the Triton interpreter emulates with numpy arithmetic that does not match the GPU's: bf16 is
# computed without float32 accumulation (tl.sum(x*x) comes out orders of magnitude off), fp8 has no
# numpy type at all.
UNTRUSTED_DTYPES = {
    "bfloat16": "the Triton interpreter's bfloat16 arithmetic is not the GPU's (reductions come out wrong)",
    "float8_e4m3fn": "the Triton interpreter has no float8 arithmetic",
    "float8_e5m2": "the Triton interpreter has no float8 arithmetic",
}

_autotuned = {}   # kernel name -> (number of configs, the config used)
_installed = False


def install():
    """Makes @triton.autotune usable under TRITON_INTERPRET=1: each autotuner keeps its first config only
    (what the GPU would pick among several is unknowable here) and is remembered for the report."""
    global _installed
    if _installed:
        return
    _installed = True
    try:
        from triton.runtime import autotuner
    except Exception:
        return
    original = autotuner.Autotuner.__init__

    def first_config_only(self, fn, arg_names, configs, *args, **kwargs):
        configs = list(configs or [])
        if len(configs) > 1:
            name = getattr(fn, "__name__", None) or getattr(getattr(fn, "fn", None), "__name__", "kernel")
            _autotuned[name] = (len(configs), str(configs[0]))
            configs = configs[:1]
        original(self, fn, arg_names, configs, *args, **kwargs)

    autotuner.Autotuner.__init__ = first_config_only


def notes():
    """Report lines for the autotuned kernels run on the CPU."""
    return [f"autotuned kernel {name} ran on the CPU with its first config only ({cfg}) of {n}; the others "
            "are checked only on a GPU" for name, (n, cfg) in sorted(_autotuned.items())]


def untrusted_reason(dtype_name, device):
    if device != "cpu":
        return None
    return UNTRUSTED_DTYPES.get(dtype_name)


def judge_trust(result, problem):
    """Marks a CPU verdict on an untrustworthy dtype UNTRUSTED, keeping what the cases said."""
    dtype_name = str(problem.dtype).replace("torch.", "")
    reason = untrusted_reason(dtype_name, problem.device)
    result["trust"] = {"trustworthy": reason is None, "reason": reason}
    if reason is None or result["verdict"] in ("CRASH", "TIMEOUT_FAIL"):
        return result
    result["trust"]["verdict_on_cpu"] = result["verdict"]
    result["verdict"] = "UNTRUSTED"
    result["culprit"] = "environment"
    result["message"] = (f"{dtype_name} on --device cpu: {reason}, so this result cannot be trusted (the "
                         f"interpreter said {result['trust']['verdict_on_cpu']}: {result['message']}); run on a "
                         "GPU, or check in float32 on the CPU")
    return result
