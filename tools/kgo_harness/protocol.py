"""Request defaults, validation and the result skeleton of the harness protocol (PROTOCOL.md).
Standard library only: the supervisor imports this without torch."""
import json
import os
import pathlib

PROTOCOL = 1
COMMANDS = ("check", "bench", "env", "run-once", "catalog", "shutdown")
# Commands whose answer is the same on every device: a warm worker answers them whatever its device.
DEVICE_FREE = ("catalog",)
NEEDS_KERNEL = ("check", "bench", "run-once")
SCHEMA_DIR = pathlib.Path(__file__).resolve().parents[2] / "schemas" / "harness"

BENCH_DEFAULTS = {"runs": 10, "precision_pct": 0.5, "max_runs": 200, "warmup": 3, "warmup_ms": 25.0, "warmup_credit": True, "graph": "auto", "graph_threshold_us": 20.0,
                  "graph_batch": 20, "rotate": "auto", "flush_l2": True, "baselines": ["eager", "compile"],
                  "check_outputs": True}
DEFAULTS = {"protocol": PROTOCOL, "reference": None, "problem": None, "contract": "auto", "op": None, "entry": None,
            "dtype": "float32", "shapes": [], "edge_shapes": True, "trials": 3, "seed": None,
            "device": "cuda", "args": {}, "atol": None, "rtol": None, "max_rel_err": None,
            "determinism": "bitwise", "delegation": True, "case_timeout_s": 30.0, "total_timeout_s": None,
            "isolate": "request", "arch": None, "cache_dir": None, "work": [], "dims": {}, "inputs": None,
            "outputs": None, "sizes": {}, "memory_limit_mb": None, "allow_ops": [], "ceilings": None,
            "unconfined": False}
BENCH_SHAPES = [[256, 256], [1024, 1024], [4096, 4096]]

class RequestError(Exception):
    """The request is invalid; the message names the field and the fix."""


def _schema_errors(request):
    try:
        import jsonschema
    except ImportError:
        return []
    path = SCHEMA_DIR / "request.schema.json"
    if not path.is_file():
        return []
    schema = json.loads(path.read_text())
    validator = jsonschema.Draft202012Validator(schema)
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
            for e in validator.iter_errors(request)]


def _basic_checks(request):
    """The checks that matter most, also where jsonschema is not installed."""
    enums = {"contract": ("auto", "seed", "op", "cuda", "fmh66", "kernelbench", "sol-execbench",
                          "tritonbench", "opus24"), "device": ("cuda", "cpu"),
             "determinism": ("bitwise", "off"), "isolate": ("request", "case")}
    for key, allowed in enums.items():
        if key in request and request[key] not in allowed:
            raise RequestError(f"{key}: '{request[key]}' is not one of {', '.join(allowed)}")
    for key in ("trials", "case_timeout_s", "total_timeout_s"):
        if key in request and request[key] is not None and (
                not isinstance(request[key], (int, float)) or request[key] <= 0):
            raise RequestError(f"{key}: must be a positive number, got {request[key]!r}")
    shapes = request.get("shapes", [])
    if not isinstance(shapes, list) or not all(
            isinstance(s, list) and s and all(isinstance(d, int) and d >= 1 for d in s) for s in shapes):
        raise RequestError("shapes: must be a list of non-empty lists of positive integers, e.g. [[4096, 4096]]")


def normalize(request, command=None):
    """Validates `request` and returns it with every default filled in. Raises RequestError."""
    if not isinstance(request, dict):
        raise RequestError("the request must be one JSON object")
    errors = _schema_errors(request)
    if errors:
        raise RequestError("invalid request: " + "; ".join(errors[:5]) +
                           " (see schemas/harness/request.schema.json)")
    _basic_checks(request)
    req = dict(DEFAULTS)
    req.update(request)
    req["bench"] = {**BENCH_DEFAULTS, **request.get("bench", {})}
    req["run_once"] = {"warmup": 1, "nvtx": "kgo_run", **request.get("run_once", {})}
    cmd = command or request.get("command")
    if request.get("command") and command and request["command"] != command:
        raise RequestError(f"request says command '{request['command']}' but the harness was run as "
                           f"'{command}'; drop the field or make them agree")
    if cmd not in COMMANDS:
        raise RequestError(f"unknown command '{cmd}'; use one of {', '.join(COMMANDS)}")
    req["command"] = cmd
    if req.get("protocol") != PROTOCOL:
        raise RequestError(f"protocol {req.get('protocol')} is not supported; this harness speaks {PROTOCOL}")
    if cmd in NEEDS_KERNEL:
        if not req.get("kernel"):
            raise RequestError(f"'{cmd}' needs \"kernel\": the path of kernel.py or kernel.cu")
        kernel = pathlib.Path(req["kernel"]).expanduser()
        if not kernel.is_file():
            raise RequestError(f"kernel file {kernel} does not exist; pass an existing kernel.py/kernel.cu")
        req["kernel"] = str(kernel.resolve())
        if req.get("reference"):
            ref = pathlib.Path(req["reference"]).expanduser()
            if not ref.is_file():
                raise RequestError(f"reference file {ref} does not exist; pass ref.py or null")
            req["reference"] = str(ref.resolve())
        if req.get("problem"):
            prob = pathlib.Path(req["problem"]).expanduser()
            if not prob.is_file():
                raise RequestError(f"problem file {prob} does not exist; pass the workspace's problem.py or null")
            req["problem"] = str(prob.resolve())
    if req["seed"] is None:
        # Drawn per request: a kernel that knew the inputs' seeds could prepare their answers before it is observed.
        import secrets
        req["seed"] = secrets.randbelow(2 ** 31 - 1)
    if req["total_timeout_s"] is None:
        req["total_timeout_s"] = 600.0 if cmd == "bench" else 60.0
    req["shapes_given"] = bool(request.get("shapes_given", bool(req["shapes"])))
    req["dtype_given"] = bool(request.get("dtype_given", "dtype" in request))
    if not req["shapes"] and cmd in ("bench", "run-once"):
        req["shapes"] = [list(s) for s in BENCH_SHAPES] if cmd == "bench" else [[1024, 1024]]
    req["args"] = {k: str(v) for k, v in req["args"].items()}
    return req


def parse_value(text):
    """'3' -> 3, '1e-5' -> 1e-5, 'true' -> True, anything else stays a string."""
    if not isinstance(text, str):
        return text
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def skeleton(command, req=None):
    req = req or {}
    return {"protocol": PROTOCOL, "command": command, "verdict": "ERROR", "message": "", "error": None,
            "kernel_sha256": None, "contract": None, "op": req.get("op"), "entry": req.get("entry"),
            "dtype": req.get("dtype"), "device": req.get("device"), "warnings": [],
            "worker": {"warm": False, "pid": None, "restarts": 0}, "timing": {}}


def error_result(command, message, req=None):
    res = skeleton(command if command in COMMANDS else "check", req)
    res["error"] = message
    res["message"] = message
    return res


# The verdicts, strongest first; each is defined here and only here (schemas and docs list the same names).
VERDICTS = {
    "REWARD_HACK": "the kernel tampered with the measurement or the judge (patched timers or harness code, "
                   "a time below the physical floor)",
    "INVALID_REFERENCE": "the reference produced NaN/Inf from finite inputs, so it cannot judge anything",
    "CRASH": "the kernel's process died or left the GPU unusable",
    "TIMEOUT_FAIL": "a case or the request ran past its time limit",
    "FAIL": "an output differs from the reference, or a rule (delegation, streams, determinism) was broken",
    "PASS": "every case matched the reference and no rule was broken",
}


def merge_verdicts(statuses):
    """The strongest verdict of VERDICTS among `statuses` (SKIPPED is ignored); PASS when none."""
    order = list(VERDICTS)[:-1]
    for v in order:
        if v in statuses:
            return v
    return "PASS"


def cache_dir(req):
    base = req.get("cache_dir") or os.environ.get("KGO_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "kgo")
    return pathlib.Path(base)


FATAL_MARKERS = ("illegal memory access", "illegal address", "misaligned address", "device-side assert",
                 "unspecified launch failure", "illegal instruction", "cuda error", "triton error [cuda]",
                 "cublas_status_execution_failed", "an illegal", "hardware stack error")


def is_cuda_fatal(exc):
    text = f"{type(exc).__name__}: {exc}".lower()
    return any(m in text for m in FATAL_MARKERS)


def case_seed(base, shape_index, trial):
    return (base * 1000003 + shape_index * 1009 + trial * 7919) % (2 ** 31 - 1)
